// nccl-tests' bus bandwidth factor: one definition (algorithms/schedule/collective_spec.h) that
// the simulator, the NCCL predictor, measurements and validate all use.
#include <gtest/gtest.h>

#include "algorithms/schedule/collective_spec.h"

namespace topotune::sched {
namespace {

TEST(BusbwFactor, MatchesNcclTests) {
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::Allreduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::Allgather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::ReduceScatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::Broadcast, 8), 1.0);
}

// One rank: nccl-tests' BroadcastGetBw uses factor 1 whatever nranks is; the others' formulas
// give 0 (a one-rank allreduce moves nothing over a bus). Two of the old copies returned 0 for
// the broadcast.
TEST(BusbwFactor, OneRank) {
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::Broadcast, 1), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::Allreduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::Allgather, 1), 0.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::ReduceScatter, 0), 0.0);
}

}  // namespace
}  // namespace topotune::sched
