// Open MPI's neighbor-exchange allgather (the model of `measure`'s MPI_Allgatherv rows on 4-7
// ranks): the interpreter proves every rank ends with every block, for even rank counts (odd
// ones run Open MPI's ring), with the bytes and depth of the header's formulas.
#include <gtest/gtest.h>

#include "algorithms/neighbor_exchange_allgather.h"
#include "tests/algorithms/allgather_proof.h"

namespace topotune::algo {
namespace {

TEST(NeighborExchange, ProvenWithOpenMpisBytesAndSteps) {
  testing::expect_proven_allgather(NeighborExchangeAllgather(AlgorithmOptions{}),
                                   {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 17, 32, 64},
                                   [](int n, std::int64_t S, const sched::Schedule& s,
                                      const sched::ScheduleStats& st, const std::string& what) {
                                     if (n % 2 == 0 && n > 1 && S >= 4 * n) {
                                       EXPECT_EQ(st.steps, n / 2) << what;
                                       EXPECT_EQ(s.algorithm(), "allgather_neighbor_exchange")
                                           << what;
                                     }
                                   });
}

// Its closed form on two hosts of two ranks: step 0 pairs 0-1 and 2-3 (inside the hosts) with
// one block, step 1 pairs 1-2 and 3-0 (across) with two: every host link carries 2 ranks x 2
// blocks = S, against a ring's 3S/4.
TEST(NeighborExchange, ClosedFormOnTwoHostsOfTwo) {
  sched::CollectiveSpec spec;
  spec.collective = sched::Collective::Allgather;
  spec.ranks = 4;
  spec.bytes = Bytes(std::int64_t{1} << 26);
  const CostParams p = testing::slow_network_params();
  const auto t =
      NeighborExchangeAllgather(AlgorithmOptions{}).closed_form(spec, *flat_layout(4, 2), p);
  ASSERT_TRUE(t);
  const double block = spec.bytes.as_double() / 4;
  const HopCost inter = p.inter_all_gpus();
  const double expect = p.intra.time(block).value + inter.time(2 * block).value;
  EXPECT_NEAR(t->value, expect, 1e-12);
}

}  // namespace
}  // namespace topotune::algo
