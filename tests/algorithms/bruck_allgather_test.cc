// Open MPI's Bruck allgather (the model of `measure`'s MPI_Allgatherv rows, e.g. on 8-15
// ranks): the interpreter proves every rank ends with every block, for every rank count (powers
// of two or not), with the bytes and depth of the header's formulas.
#include "algorithms/bruck_allgather.h"

#include <gtest/gtest.h>

#include "tests/algorithms/allgather_proof.h"

namespace topotune::algo {
namespace {

TEST(BruckAllgather, ProvenWithOpenMpisBytesAndSteps) {
  testing::expect_proven_allgather(BruckAllgather(AlgorithmOptions{}),
                                   {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 16, 17, 24, 31, 32, 33, 64},
                                   [](int n, std::int64_t S, const sched::Schedule& s,
                                      const sched::ScheduleStats& st, const std::string& what) {
                                     if (n > 1 && S >= 4 * n) {
                                       int log2n = 0;
                                       while ((1 << log2n) < n) ++log2n;
                                       EXPECT_EQ(st.steps, log2n) << what;
                                       EXPECT_EQ(s.algorithm(), "allgather_bruck") << what;
                                     }
                                   });
}

// Its closed form on 6 ranks, three hosts of two: distance 1 pairs (r to r-1) cross hosts for
// even r, one block; distance 2 always crosses, two blocks; distance 4 (the last, n-4 = 2
// blocks) always crosses.
TEST(BruckAllgather, ClosedFormOnThreeHostsOfTwo) {
  sched::CollectiveSpec spec;
  spec.collective = sched::Collective::Allgather;
  spec.ranks = 6;
  spec.bytes = Bytes(std::int64_t{6} << 24);
  const CostParams p = testing::slow_network_params();
  const auto t = BruckAllgather(AlgorithmOptions{}).closed_form(spec, *flat_layout(6, 2), p);
  ASSERT_TRUE(t);
  const double block = spec.bytes.as_double() / 6;
  const HopCost inter = p.inter_all_gpus();
  const double expect =
      inter.time(block).value + inter.time(2 * block).value + inter.time(2 * block).value;
  EXPECT_NEAR(t->value, expect, 1e-12);
}

}  // namespace
}  // namespace topotune::algo
