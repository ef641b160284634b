// predict --algo's timing: the closed form and the flow simulation of a schedule agree where
// nothing is contended, both carry the same software costs, and bandwidths follow nccl-tests.

#include "timing/schedule_timing.h"

#include <gtest/gtest.h>

namespace topotune::tune {
namespace {

ScheduleTimes times(const std::string& algorithm, ScheduleTiming timing, int nodes,
                    std::vector<Bytes> sizes) {
  const topo::ClusterSpec spec = *topo::make_cluster_spec("p4d.24xlarge", nodes);
  auto t = schedule_times(spec, algo::default_params(), algorithm, sched::Collective::Allreduce,
                          sizes, timing);
  EXPECT_TRUE(t) << t.error().message;
  return t ? *t : ScheduleTimes{};
}

TEST(ScheduleTiming, SimulationAgreesWithTheClosedFormWithoutContention) {
  // One p4d host: a ring over NVSwitch, every GPU its own links, no two flows share one.
  const std::vector<Bytes> sizes = {Bytes(1 << 20), Bytes(64 << 20)};
  const ScheduleTimes closed = times("ring", ScheduleTiming::ClosedForm, 1, sizes);
  const ScheduleTimes simulated = times("ring", ScheduleTiming::Simulated, 1, sizes);
  ASSERT_EQ(closed.rows.size(), 2u);
  ASSERT_EQ(simulated.rows.size(), 2u);
  EXPECT_EQ(closed.ranks, 8);
  EXPECT_EQ(closed.nodes, 1);
  EXPECT_EQ(closed.algorithm, "ring(channels=1,chunks=1)");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_NEAR(simulated.rows[i].time.value, closed.rows[i].time.value,
                1e-3 * closed.rows[i].time.value)
        << sizes[i].value;
  }
}

TEST(ScheduleTiming, BandwidthsAreNcclTests) {
  const ScheduleTimes t = times("ring", ScheduleTiming::ClosedForm, 2, {Bytes(0), Bytes(16 << 20)});
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.ranks, 16);
  const ScheduleTimeRow& r = t.rows[1];
  EXPECT_NEAR(r.algbw_GBps, (16 << 20) / r.time.value / 1e9, 1e-9);
  EXPECT_NEAR(r.busbw_GBps, r.algbw_GBps * 2 * 15 / 16, 1e-9);  // 2(n-1)/n
  // No bytes: the steps' latencies only, and no bandwidth.
  EXPECT_GT(t.rows[0].time.value, 0.0);
  EXPECT_LT(t.rows[0].time.value, r.time.value);
  EXPECT_EQ(t.rows[0].algbw_GBps, 0.0);
}

TEST(ScheduleTiming, UnknownAlgorithmsAreRefused) {
  const topo::ClusterSpec spec = *topo::make_cluster_spec("p4d.24xlarge", 1);
  const auto t = schedule_times(spec, algo::default_params(), "rnig", sched::Collective::Allreduce,
                                {Bytes(1024)}, ScheduleTiming::ClosedForm);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("rnig"), std::string::npos);
}

}  // namespace
}  // namespace topotune::tune
