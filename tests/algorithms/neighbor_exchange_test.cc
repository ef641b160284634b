// Open MPI's neighbor-exchange allgather (the model of `measure`'s MPI_Allgatherv rows on 4-7
// ranks): the interpreter proves every rank ends with every block, for even rank counts (odd
// ones run Open MPI's ring), with the bytes and depth of the header's formulas.
#include <gtest/gtest.h>

#include <string>

#include "algorithms/neighbor_exchange_allgather.h"
#include "algorithms/rank_layout.h"
#include "algorithms/schedule/interpreter.h"
#include "algorithms/schedule/schedule_stats.h"

namespace topotune::algo {
namespace {

TEST(NeighborExchange, ProvenWithOpenMpisBytesAndSteps) {
  for (int n : {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 17, 32, 64}) {
    for (int G : {1, 2}) {
      if (n % G != 0) continue;
      for (std::int64_t S : {std::int64_t{0}, std::int64_t{4}, 4 * (7 * std::int64_t{n} + 1),
                             std::int64_t{1} << 24}) {
        const std::string what =
            "n=" + std::to_string(n) + " G=" + std::to_string(G) + " S=" + std::to_string(S);
        sched::CollectiveSpec spec;
        spec.collective = sched::Collective::Allgather;
        spec.ranks = n;
        spec.bytes = Bytes(S);
        const auto s =
            NeighborExchangeAllgather(AlgorithmOptions{}).generate(spec, *flat_layout(n, G));
        ASSERT_TRUE(s) << what << ": " << s.error().message;
        const auto proof = sched::verify(*s);
        ASSERT_TRUE(proof) << what << ": " << proof.error().message;
        const sched::ScheduleStats st = sched::schedule_stats(*s);
        std::int64_t sent = 0;
        for (const Bytes& b : st.sent) sent += b.value;
        EXPECT_EQ(sent, (n - 1) * S) << what;  // each rank receives every block but its own once
        if (n % 2 == 0 && n > 1 && S >= 4 * n) {
          EXPECT_EQ(st.steps, n / 2) << what;
          EXPECT_EQ(s->algorithm(), "allgather_neighbor_exchange") << what;
        }
      }
    }
  }
}

// Its closed form on two hosts of two ranks: step 0 pairs 0-1 and 2-3 (inside the hosts) with
// one block, step 1 pairs 1-2 and 3-0 (across) with two: every host link carries 2 ranks x 2
// blocks = S, against a ring's 3S/4.
TEST(NeighborExchange, ClosedFormOnTwoHostsOfTwo) {
  sched::CollectiveSpec spec;
  spec.collective = sched::Collective::Allgather;
  spec.ranks = 4;
  spec.bytes = Bytes(std::int64_t{1} << 26);
  CostParams p;
  p.intra = HopCost{Seconds(1e-6), BytesPerSec(1e11)};
  p.inter = HopCost{Seconds(1e-5), BytesPerSec(1e9)};
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
