// NCCL predictor: enable rules, selection, the phenomena real logs show, and one hand-solved
// pipeline time.

#include "algorithms/nccl/nccl_predictor.h"

#include <gtest/gtest.h>

#include "tests/nccl/test_systems.h"

namespace topotune::algo {
namespace {

using sched::Collective;
using testing::dgx_a100;
using testing::dgx_h100;
using testing::p4d;
using testing::p5;

NcclPrediction predict(const NcclSystem& s, Bytes b, NcclOptions o = {}) {
  return NcclPredictor(s, default_params(), o).predict(Collective::Allreduce, b, true).value();
}

TEST(NcclSystem, EfaGenerationDecidesRdmaWrite) {
  EXPECT_EQ(p4d(2).nic_class, NicClass::EfaSrd);
  EXPECT_EQ(p5(2).nic_class, NicClass::EfaRdma);
  EXPECT_EQ(dgx_a100(2).nic_class, NicClass::InfiniBand);
  EXPECT_DOUBLE_EQ(p5(1).gpu_intra_bandwidth.gbps_bytes(), 450.0);  // 18 x 25 GB/s
  EXPECT_EQ(p5(4).ranks(), 32);
}

TEST(NcclVersion, Parses) {
  const NcclVersion v = parse_nccl_version("2.9.9+cuda11.2").value();
  EXPECT_EQ(v.minor, 9);
  EXPECT_TRUE(v.at_least(2, 9));
  EXPECT_FALSE(v.at_least(2, 17));
  EXPECT_EQ(parse_nccl_version("2.23").value().str(), "2.23.0");
  EXPECT_FALSE(parse_nccl_version("two").has_value());
  EXPECT_FALSE(parse_nccl_version("2.").has_value());
  EXPECT_TRUE(NcclVersion{}.at_least(9, 9));  // unknown = latest
}

TEST(NcclRules, NvlsNeedsHopperNvswitchAndOneNode) {
  const NcclPredictor h100(dgx_h100(1), default_params(), {});
  EXPECT_TRUE(
      h100.evaluate(Collective::Allreduce, Bytes(1 << 30), NcclAlgo::Nvls, NcclProto::Simple)
          .enabled);
  EXPECT_FALSE(
      h100.evaluate(Collective::Allreduce, Bytes(1 << 30), NcclAlgo::Nvls, NcclProto::LL).enabled);
  EXPECT_FALSE(
      h100.evaluate(Collective::Allreduce, Bytes(1 << 30), NcclAlgo::NvlsTree, NcclProto::Simple)
          .enabled);
  const NcclPredictor a100(dgx_a100(1), default_params(), {});
  EXPECT_EQ(a100.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::Nvls, NcclProto::Simple)
                .why_disabled,
            "no NVLS-capable NVSwitch");
  const NcclPredictor two(p5(2), default_params(), {});
  EXPECT_FALSE(
      two.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::Nvls, NcclProto::Simple).enabled);
  EXPECT_TRUE(
      two.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::NvlsTree, NcclProto::Simple).enabled);
  EXPECT_FALSE(
      two.evaluate(Collective::Allgather, Bytes(1), NcclAlgo::Tree, NcclProto::Simple).enabled);
}

TEST(NcclRules, VersionAndEnvironmentRestrict) {
  NcclOptions old;
  old.version = parse_nccl_version("2.4.8").value();
  const NcclPredictor p(p5(2), default_params(), old);
  EXPECT_FALSE(
      p.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::Ring, NcclProto::LL128).enabled);
  EXPECT_FALSE(
      p.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::NvlsTree, NcclProto::Simple).enabled);
  NcclOptions ring;
  ring.algos = {NcclAlgo::Ring};
  for (Bytes b : {Bytes(8), Bytes(1 << 20), Bytes(std::int64_t{1} << 32)}) {
    EXPECT_EQ(predict(p4d(2), b, ring).chosen.algo, NcclAlgo::Ring);
  }
  // EFA v1 has no RDMA write: LL128 stays off across p4d nodes but not inside one.
  const NcclPredictor multi(p4d(2), default_params(), {});
  EXPECT_FALSE(
      multi.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::Ring, NcclProto::LL128).enabled);
  const NcclPredictor single(p4d(1), default_params(), {});
  EXPECT_TRUE(
      single.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::Ring, NcclProto::LL128).enabled);
}

TEST(NcclSelection, ChoosesTheMinimumEnabledCandidate) {
  for (Bytes b : {Bytes(8), Bytes(65536), Bytes(1 << 24), Bytes(1 << 30)}) {
    const NcclPrediction pr = predict(p5(2), b);
    for (const NcclCandidate& c : pr.candidates) {
      if (c.enabled) {
        EXPECT_LE(pr.chosen.time.value, c.time.value);
      }
    }
  }
}

TEST(NcclPhenomena, SmallMessageLatencyFloor) {
  // Below a few KiB the time is latency: 8 B and 1 KiB differ by under 5%, and take microseconds.
  for (const NcclSystem& s : {dgx_h100(1), p4d(2), p5(2)}) {
    const double t8 = predict(s, Bytes(8)).chosen.time.us();
    const double t1k = predict(s, Bytes(1024)).chosen.time.us();
    EXPECT_GT(t8, 5.0);
    EXPECT_LT(t1k / t8, 1.05);
  }
}

TEST(NcclPhenomena, NvlsBusbwAboveNvlinkRateOnH100) {
  const NcclPrediction pr = predict(dgx_h100(1), Bytes(std::int64_t{1} << 34));
  EXPECT_EQ(pr.chosen.algo, NcclAlgo::Nvls);
  EXPECT_GT(pr.busbw_GBps, 450.0);  // the per-GPU NVLink rate
}

TEST(NcclPhenomena, TwoNodeTreeExceedsNicLineRate) {
  const NcclPrediction pr = predict(p4d(2), Bytes(1 << 30));
  EXPECT_EQ(pr.chosen.algo, NcclAlgo::Tree);
  EXPECT_GT(pr.busbw_GBps, 50.0);  // 4 x 100 Gbps per node
  NcclOptions ring;
  ring.algos = {NcclAlgo::Ring};
  EXPECT_LT(predict(p4d(2), Bytes(1 << 30), ring).busbw_GBps, 50.0);
}

TEST(NcclPhenomena, PlateauBelowLineRateAtFourNodes) {
  const NcclPrediction pr = predict(dgx_a100(4), Bytes(std::int64_t{1} << 32));
  EXPECT_LT(pr.busbw_GBps, 200.0);  // 8 x 200 Gbps per node
  EXPECT_GT(pr.busbw_GBps, 150.0);
}

TEST(NcclPhenomena, TimeGrowsWithSize) {
  double last = 0;
  for (std::int64_t b = 8; b <= (std::int64_t{1} << 34); b *= 2) {
    const double t = predict(p5(4), Bytes(b)).chosen.time.us();
    EXPECT_GE(t, last * 0.999) << b;
    last = t;
  }
}

TEST(NcclPipeline, HandSolvedRingSimpleOnOneNode) {
  // 8 GPUs on an NVSwitch of 100 GB/s per GPU, every efficiency 1, Simple only.
  NcclModelParams p = default_params();
  p.nvlink_efficiency = 1.0;
  p.proto_efficiency[2] = 1.0;
  p.nvlink_latency_scale = 1.0;
  p.nvlink_latency_us[0][2] = 2.0;  // ring Simple hop: 2 us
  p.base_latency_us[0][2] = 10.0;
  p.chunk_bytes[2] = 1 << 20;
  p.step_exposed[2] = 0.5;
  p.nvlink_channel_GBps = 50;  // 100 / 50 = 2 channels
  NcclSystem s = dgx_a100(1);
  s.gpu_intra_bandwidth = gbyte_per_sec(100);
  const NcclPredictor pr(s, p, {});
  const NcclCandidate c =
      pr.evaluate(Collective::Allreduce, Bytes(32 << 20), NcclAlgo::Ring, NcclProto::Simple);
  // S = 32 MiB, n = 8, 2 channels: per step per channel S/(8*2) = 2 MiB = 2 chunks of 1 MiB.
  // Steps 2(n-1) = 14; units through the bottleneck = 2 loops x 14 steps = 28.
  // Rate per channel 50 GB/s: a unit takes 2^20 / 50e9 = 20.97152 us.
  // path = 14 x (2 + 20.97152) = 321.60128 us; tail = 27 x (20.97152 + 0.5 x 2) = 593.23104 us.
  // total = 10 + 321.60128 + 593.23104 = 924.83232 us.
  EXPECT_EQ(c.channels, 2);
  EXPECT_NEAR(c.time.us(), 924.83232, 1e-6);

  // NCCL_MAX_NCHANNELS=1: one channel drives 1/2 of the rate the search's two did (busBw =
  // nChannels x per-channel rate): 50 GB/s. Per step S/8 = 4 MiB = 4 chunks of 1 MiB, unit
  // 20.97152 us. path = 14 x 22.97152 = 321.60128 us; tail = (4 x 14 - 1) x 21.97152 =
  // 1208.4336 us; total = 10 + 321.60128 + 1208.4336 = 1540.03488 us.
  NcclOptions one;
  one.max_channels = 1;
  const NcclCandidate c1 = NcclPredictor(s, p, one).evaluate(Collective::Allreduce, Bytes(32 << 20),
                                                             NcclAlgo::Ring, NcclProto::Simple);
  EXPECT_EQ(c1.channels, 1);
  EXPECT_NEAR(c1.time.us(), 1540.03488, 1e-6);
  // NCCL_MIN_NCHANNELS=4: duplicated channels share the same 100 GB/s (25 GB/s each). Per step
  // S/32 = 1 MiB = one unit of 41.94304 us. path = 14 x 43.94304 = 615.20256 us; tail = 13 x
  // 42.94304 = 558.25952 us; total = 10 + 615.20256 + 558.25952 = 1183.46208 us.
  NcclOptions four;
  four.min_channels = 4;
  const NcclCandidate c4 =
      NcclPredictor(s, p, four)
          .evaluate(Collective::Allreduce, Bytes(32 << 20), NcclAlgo::Ring, NcclProto::Simple);
  EXPECT_EQ(c4.channels, 4);
  EXPECT_NEAR(c4.time.us(), 1183.46208, 1e-6);
  // Beyond MAXCHANNELS the count is clamped; NVLS keeps its own count.
  NcclOptions many;
  many.min_channels = 1000;
  EXPECT_EQ(NcclPredictor(s, p, many)
                .evaluate(Collective::Allreduce, Bytes(1 << 20), NcclAlgo::Ring, NcclProto::Simple)
                .channels,
            static_cast<int>(p.max_channels));
  const NcclPredictor h100(dgx_h100(1), default_params(), many);
  EXPECT_EQ(h100.evaluate(Collective::Allreduce, Bytes(1 << 30), NcclAlgo::Nvls, NcclProto::Simple)
                .channels,
            static_cast<int>(default_params().nvls_channels));
}

}  // namespace
}  // namespace topotune::algo
