// validate's health verdict and its contradiction warnings (calibration/log_health.h), as pure
// functions of compared rows and the cluster.
#include "calibration/log_health.h"

#include <gtest/gtest.h>

#include "tests/nccl/test_systems.h"

namespace topotune::tune {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

std::vector<HealthPoint> rows(double share_from_64m) {
  std::vector<HealthPoint> pts;
  for (std::int64_t b = kMiB; b <= 1024 * kMiB; b *= 4) {
    const double predicted = 80.0 * static_cast<double>(b) / (static_cast<double>(b) + 8 * kMiB);
    const double measured = predicted * (b >= 64 * kMiB ? share_from_64m : 1.05);
    pts.push_back({b, measured, predicted});
  }
  return pts;
}

TEST(LogHealth, HealthyRunIsWithinTheExpectedError) {
  const HealthVerdict v = judge_health(rows(0.95), algo::testing::p4d(2));
  EXPECT_TRUE(v.healthy);
  EXPECT_FALSE(v.underperforming);
  EXPECT_NE(v.text.find("healthy"), std::string::npos) << v.text;
}

TEST(LogHealth, DegradedLargeSizesAreFlaggedFromTheFirstLowSize) {
  const HealthVerdict v = judge_health(rows(0.3), algo::testing::p4d(2));
  EXPECT_FALSE(v.healthy);
  EXPECT_TRUE(v.underperforming);
  EXPECT_EQ(v.from_bytes, 64 * kMiB);
  EXPECT_NEAR(v.share, 0.3, 1e-9);
  EXPECT_NE(v.text.find("busbw at 30 % of predicted from 64 MiB"), std::string::npos) << v.text;
}

TEST(LogHealth, SmallSizesOnlyGiveNoVerdict) {
  const HealthVerdict v = judge_health({{4096, 1, 2}}, algo::testing::p4d(2));
  EXPECT_FALSE(v.healthy);
  EXPECT_FALSE(v.underperforming);
}

TEST(LogHealth, ContradictionsNameTheGpuFamilyAndTheHostCount) {
  const topo::ClusterSpec p4d = topo::make_cluster_spec("p4d.24xlarge", 2).value();
  EXPECT_TRUE(log_contradictions({{"NVIDIA A100-SXM4-40GB"}, 2}, p4d, true).empty());
  const auto w = log_contradictions({{"NVIDIA H100 80GB HBM3"}, 4}, p4d, true);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("H100"), std::string::npos) << w[0];
  EXPECT_NE(w[1].find("4 host(s) but --nodes is 2"), std::string::npos) << w[1];
  EXPECT_EQ(log_contradictions({{}, 4}, p4d, false).size(), 0u);  // nodes not given: no claim
}

}  // namespace
}  // namespace topotune::tune
