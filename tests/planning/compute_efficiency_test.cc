// The roofline compute model (planning/compute_efficiency.h): values derived by hand from
// efficiency = 1 / (1 + bytes_per_flop x peak / bandwidth).

#include "planning/compute_efficiency.h"

#include <gtest/gtest.h>

#include <optional>

#include "core/units.h"

namespace topotune::tune {
namespace {

TEST(ComputeEfficiency, RooflineSplitsTimeBetweenPeakAndBandwidth) {
  // 100 TFLOP/s and 1 TB/s: a FLOP takes 1e-14 s at peak; 0.01 bytes per FLOP take
  // 0.01 / 1e12 = 1e-14 s more, so the step reaches half the peak.
  EXPECT_DOUBLE_EQ(roofline_efficiency(0.01, 100e12, BytesPerSec(1e12)), 0.5);
  // 0.03 bytes per FLOP: 3e-14 s of traffic beside 1e-14 s of FLOPs, a quarter of the peak.
  EXPECT_DOUBLE_EQ(roofline_efficiency(0.03, 100e12, BytesPerSec(1e12)), 0.25);
  // No traffic: the peak itself.
  EXPECT_DOUBLE_EQ(roofline_efficiency(0.0, 100e12, BytesPerSec(1e12)), 1.0);
}

TEST(ComputeEfficiency, FitMovesWithTheGpusBalance) {
  // The convnet amp fit is 0.0271 bytes per FLOP (the A100 80GB ResNet-50 row). On the A100
  // 80GB (312 TFLOP/s, 2039 GB/s): 1 / (1 + 0.0271 x 153.02) = 1 / 5.1467 = 0.19430,
  // the row's own efficiency. On an H100 SXM (989.5 TFLOP/s, 3350 GB/s), whose peak grew
  // 3.2x but bandwidth 1.6x: 1 / (1 + 0.0271 x 295.37) = 1 / 9.0046 = 0.11105.
  const std::optional<double> a100 = family_efficiency(
      ModelFamily::Convnet, TrainingPrecision::AmpFp16, 312e12, BytesPerSec(2039e9));
  const std::optional<double> h100 = family_efficiency(
      ModelFamily::Convnet, TrainingPrecision::AmpBf16, 989.5e12, BytesPerSec(3350e9));
  ASSERT_TRUE(a100 && h100);
  EXPECT_NEAR(*a100, 0.19430, 1e-5);
  EXPECT_NEAR(*h100, 0.11105, 1e-5);
  // amp-fp16 and amp-bf16 share one fit.
  EXPECT_EQ(family_bytes_per_flop(ModelFamily::Transformer, TrainingPrecision::AmpFp16),
            family_bytes_per_flop(ModelFamily::Transformer, TrainingPrecision::AmpBf16));
}

TEST(ComputeEfficiency, UnknownBandwidthTakesTheFitGpusEfficiency) {
  // Transformer fp32 (0.0187 bytes/FLOP) on a GPU of unknown bandwidth: the fit GPUs' balance,
  // V100 SXM2's 15.7 TFLOPS / 900 GB/s = 17.4 FLOP/byte: 1 / (1 + 0.0187 x 17.4) = 0.75451,
  // the published V100 BERT-large fp32 row's efficiency (0.754), whatever this GPU's peak.
  const std::optional<double> e =
      family_efficiency(ModelFamily::Transformer, TrainingPrecision::Fp32, 19.5e12, std::nullopt);
  ASSERT_TRUE(e);
  EXPECT_NEAR(*e, 0.75451, 1e-5);
  EXPECT_EQ(default_efficiency(std::nullopt, ModelFamily::Transformer, TrainingPrecision::Fp32,
                               19.5e12, std::nullopt),
            *e);
  // Convnet amp at the A100 80GB's 153.0 FLOP/byte: 1 / (1 + 0.0271 x 153.0) = 0.19431.
  EXPECT_NEAR(
      *family_efficiency(ModelFamily::Convnet, TrainingPrecision::AmpBf16, 125e12, std::nullopt),
      0.19431, 1e-5);
  // No peak (a profile timed by its measured times): nothing to place the roofline on.
  EXPECT_EQ(default_efficiency(std::nullopt, ModelFamily::Convnet, TrainingPrecision::AmpBf16, 0,
                               BytesPerSec(3350e9)),
            kDefaultComputeEfficiency);
  // The profile's own figure wins over the fit; no family is the default.
  EXPECT_EQ(default_efficiency(0.3, ModelFamily::Convnet, TrainingPrecision::AmpBf16, 989.5e12,
                               BytesPerSec(3350e9)),
            0.3);
  EXPECT_EQ(default_efficiency(std::nullopt, std::nullopt, TrainingPrecision::AmpBf16, 989.5e12,
                               BytesPerSec(3350e9)),
            kDefaultComputeEfficiency);
}

}  // namespace
}  // namespace topotune::tune
