// NCCL predictor: what it chooses (NCCL's own rule, the AWS plugin's environment and tuner),
// enable rules, and the phenomena real logs show.

#include "algorithms/nccl/nccl_predictor.h"

#include <gtest/gtest.h>

#include <algorithm>

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

NcclOptions version(const char* v) {
  NcclOptions o;
  o.version = parse_nccl_version(v).value();
  return o;
}

TEST(NcclSystem, EfaGenerationDecidesRdmaWrite) {
  EXPECT_EQ(p4d(2).nic_class, NicClass::EfaSrd);
  EXPECT_EQ(p5(2).nic_class, NicClass::EfaRdma);
  EXPECT_EQ(dgx_a100(2).nic_class, NicClass::InfiniBand);
  EXPECT_DOUBLE_EQ(p5(1).gpu_intra_bandwidth.gbps_bytes(), 450.0);  // 18 x 25 GB/s
  EXPECT_EQ(p5(4).ranks(), 32);
  EXPECT_TRUE(p5(1).amd_cpu);
  EXPECT_FALSE(dgx_h100(1).amd_cpu);
  EXPECT_DOUBLE_EQ(p4d(1).gpus_per_nic_switch, 2.0);
}

TEST(NcclVersion, Parses) {
  const NcclVersion v = parse_nccl_version("2.9.9+cuda11.2").value();
  EXPECT_EQ(v.minor, 9);
  EXPECT_TRUE(v.at_least(2, 9));
  EXPECT_FALSE(v.at_least(2, 17));
  EXPECT_EQ(v.code(), 20909);
  EXPECT_EQ(parse_nccl_version("2.23").value().str(), "2.23.0");
  EXPECT_FALSE(parse_nccl_version("two").has_value());
  EXPECT_FALSE(parse_nccl_version("2.").has_value());
  // Figures a release code cannot hold: 99999999.1 overflowed it, 2.100 aliased 3.0.
  EXPECT_FALSE(parse_nccl_version("99999999.1").has_value());
  EXPECT_FALSE(parse_nccl_version("2.100").has_value());
  EXPECT_FALSE(parse_nccl_version("2.23.100").has_value());
  EXPECT_EQ(parse_nccl_version("2.99.99").value().code(), 29999);
  EXPECT_TRUE(NcclVersion{}.at_least(9, 9));  // unknown = latest
  EXPECT_EQ(NcclVersion{}.code(), kLatestModeledRelease);
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
  EXPECT_FALSE(
      a100.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::Nvls, NcclProto::Simple).enabled);
  const NcclPredictor two(dgx_h100(2), default_params(), {});
  EXPECT_FALSE(
      two.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::Nvls, NcclProto::Simple).enabled);
  EXPECT_TRUE(
      two.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::NvlsTree, NcclProto::Simple).enabled);
  EXPECT_FALSE(
      two.evaluate(Collective::Allgather, Bytes(1), NcclAlgo::Tree, NcclProto::Simple).enabled);
  // NVLS arrived in 2.17; aws-ofi-nccl turns it off below 2.18.5 (configure_nvls_option).
  const NcclPredictor old(dgx_h100(1), default_params(), version("2.16.5"));
  EXPECT_FALSE(
      old.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::Nvls, NcclProto::Simple).enabled);
  const NcclPredictor efa(p5(2), default_params(), version("2.18.3"));
  EXPECT_FALSE(
      efa.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::NvlsTree, NcclProto::Simple).enabled);
}

TEST(NcclRules, VersionAndEnvironmentRestrict) {
  const NcclPredictor p(dgx_a100(2), default_params(), version("2.4.8"));
  EXPECT_FALSE(
      p.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::Ring, NcclProto::LL128).enabled);
  NcclOptions ring;
  ring.algos = {NcclAlgo::Ring};
  for (Bytes b : {Bytes(8), Bytes(1 << 20), Bytes(std::int64_t{1} << 32)}) {
    EXPECT_EQ(predict(p4d(2), b, ring).chosen.algo, NcclAlgo::Ring);
  }
}

TEST(NcclRules, AwsPluginForcesSimpleOnEfaV1) {
  // aws-ofi-nccl sets NCCL_PROTO=simple on EFA without 128-byte in-order writes (p4d): LL and
  // LL128 are off, whatever the node count; a user's own NCCL_PROTO is kept.
  for (int nodes : {1, 2}) {
    const NcclPredictor pr(p4d(nodes), default_params(), {});
    for (NcclProto q : {NcclProto::LL, NcclProto::LL128}) {
      EXPECT_EQ(pr.evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::Ring, q).why_disabled,
                "excluded by NCCL_PROTO");
    }
    EXPECT_EQ(predict(p4d(nodes), Bytes(4096)).chosen.proto, NcclProto::Simple);
  }
  NcclOptions ll128;
  ll128.protos = {NcclProto::LL128};
  EXPECT_TRUE(NcclPredictor(p4d(2), default_params(), ll128)
                  .evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::Ring, NcclProto::LL128)
                  .enabled);
  // EFA v2 (p5) keeps every protocol.
  EXPECT_TRUE(NcclPredictor(p5(2), default_params(), {})
                  .evaluate(Collective::Allreduce, Bytes(1), NcclAlgo::Tree, NcclProto::LL128)
                  .enabled);
}

TEST(NcclSelection, NcclsOwnEstimateDecides) {
  // Without a tuner, the chosen candidate has the lowest NCCL estimate, not the lowest
  // physical time.
  for (Bytes b : {Bytes(8), Bytes(65536), Bytes(1 << 24), Bytes(1 << 30)}) {
    const NcclPrediction pr = predict(dgx_h100(2), b);
    EXPECT_EQ(pr.chosen_by, "NCCL's cost model");
    for (const NcclCandidate& c : pr.candidates) {
      if (c.enabled) {
        EXPECT_LE(pr.chosen.nccl_estimate.value, c.nccl_estimate.value) << b.value;
      }
    }
  }
}

TEST(NcclSelection, AwsRegionTunerDecidesOnP5PastTwoNodes) {
  // aws-ofi-nccl's p5 regions: at 4 nodes Tree/LL128 below ~48 MiB, Ring/LL128 to ~1.5 GiB,
  // Ring/Simple above; at two nodes NCCL decides.
  const NcclPrediction small = predict(p5(4), Bytes(16 << 20));
  EXPECT_EQ(small.chosen_by, "AWS region tuner (aws-ofi-nccl)");
  EXPECT_EQ(small.chosen.algo, NcclAlgo::Tree);
  EXPECT_EQ(small.chosen.proto, NcclProto::LL128);
  const NcclPrediction mid = predict(p5(4), Bytes(256 << 20));
  EXPECT_EQ(mid.chosen.algo, NcclAlgo::Ring);
  EXPECT_EQ(mid.chosen.proto, NcclProto::LL128);
  const NcclPrediction big = predict(p5(4), Bytes(std::int64_t{4} << 30));
  EXPECT_EQ(big.chosen.algo, NcclAlgo::Ring);
  EXPECT_EQ(big.chosen.proto, NcclProto::Simple);
  EXPECT_EQ(predict(p5(2), Bytes(256 << 20)).chosen_by, "NCCL's cost model");
  NcclOptions none;
  none.tuner = NcclTunerMode::None;
  EXPECT_EQ(predict(p5(4), Bytes(256 << 20), none).chosen_by, "NCCL's cost model");
  // NCCL before 2.21 finds no tuner in the net plugin.
  EXPECT_EQ(predict(p5(4), Bytes(256 << 20), version("2.20.5")).chosen_by, "NCCL's cost model");
}

// p6-b200 with one GPU per node: the AWS tuner picks PAT for small all-gathers and sets its
// channel count (calculateBestNChannelPat: one channel up to 64 KiB per node, two up to 128
// KiB); NCCL would run PAT on the communicator's channels.
TEST(NcclSelection, AwsTunerSetsPatChannelsOnP6) {
  topo::InstanceSpec inst =
      testing::nvswitch_instance("p6-b200.48xlarge", topo::GpuArch::Blackwell, 18, true, 8, 400,
                                 topo::NetTransport::Efa, 3, 63, "Intel Xeon 5th Gen");
  inst.num_gpus = 1;
  inst.num_nics = 8;
  const NcclPredictor pr(testing::system_of(inst, 8), default_params(), {});
  const auto at = [&pr](std::int64_t bytes) {
    return pr.predict(sched::Collective::Allgather, Bytes(bytes)).value();
  };
  const NcclPrediction one = at(256 << 10), two = at(1 << 20), own = at(2 << 20);
  EXPECT_EQ(one.chosen_by, "AWS region tuner (aws-ofi-nccl)");
  EXPECT_EQ(one.chosen.algo, NcclAlgo::Pat);
  EXPECT_EQ(one.chosen.channels, 1);
  EXPECT_EQ(two.chosen.algo, NcclAlgo::Pat);
  EXPECT_EQ(two.chosen.channels, 2);
  EXPECT_EQ(own.chosen.algo, NcclAlgo::Pat);  // 2 MiB: PAT, NCCL's channel count
  EXPECT_GT(own.chosen.channels, 2);
  EXPECT_EQ(own.chosen.channels, pr.evaluate(sched::Collective::Allgather, Bytes(2 << 20),
                                             NcclAlgo::Pat, NcclProto::Simple)
                                     .channels);
}

// A restriction that leaves nothing says why what it left is out.
TEST(NcclRules, NothingEnabledNamesTheReason) {
  NcclOptions o;
  o.algos = {NcclAlgo::Pat};
  const auto r = NcclPredictor(p4d(2), default_params(), o)
                     .predict(sched::Collective::Allgather, Bytes(1 << 20));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("(pat: PAT needs one GPU per node)"), std::string::npos)
      << r.error().message;
  o.algos = {NcclAlgo::Ring};
  o.protos = {NcclProto::LL128};
  EXPECT_TRUE(NcclPredictor(p4d(2), default_params(), o)
                  .predict(sched::Collective::Allgather, Bytes(1 << 20)));
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

TEST(NcclPhenomena, NvlsBeatsTheRingOnH100) {
  // A DGX H100 measures ~480 GB/s busbw with NVLS against ~369 with NCCL_NVLS_ENABLE=0
  // (nccl-tests issue #309); the model keeps NVLS well ahead of the ring.
  const NcclPrediction pr = predict(dgx_h100(1), Bytes(std::int64_t{1} << 34));
  EXPECT_EQ(pr.chosen.algo, NcclAlgo::Nvls);
  NcclOptions ring;
  ring.algos = {NcclAlgo::Ring};
  const double ring_busbw = predict(dgx_h100(1), Bytes(std::int64_t{1} << 34), ring).busbw_GBps;
  EXPECT_GT(pr.busbw_GBps, 1.15 * ring_busbw);
  EXPECT_GT(pr.busbw_GBps, 400.0);
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

TEST(NcclPhenomena, TimeGrowsWithSizeForOneChoice) {
  NcclOptions o;
  o.algos = {NcclAlgo::Ring};
  o.protos = {NcclProto::Simple};
  double last = 0;
  for (std::int64_t b = 8; b <= (std::int64_t{1} << 34); b *= 2) {
    const double t = predict(p5(4), Bytes(b), o).chosen.time.us();
    EXPECT_GE(t, last * 0.999) << b;
    last = t;
  }
}

TEST(NcclPhenomena, BusbwFollowsItsTrendUpToTheTerabyteLimit) {
  // 2.22.3's cells are 256 B: ceil(512 GiB / 256) = 2^31 cells, which a cast to int wrapped,
  // so NCCL seemed to launch one channel and busbw halved inside the 1 TiB limit.
  // Past 1 GiB a ring is bandwidth-bound: busbw stays within 2 % of the 1 GiB..256 GiB range.
  for (const char* release : {"2.22.3", "2.23.4", "2.29.2"}) {
    NcclOptions o = version(release);
    o.algos = {NcclAlgo::Ring};
    const NcclSystem sys = p4d(2);
    double lo = 1e300, hi = 0;
    for (std::int64_t b = std::int64_t{1} << 30; b <= std::int64_t{1} << 38; b *= 2) {
      const NcclPrediction pr = predict(sys, Bytes(b), o);
      lo = std::min(lo, pr.busbw_GBps);
      hi = std::max(hi, pr.busbw_GBps);
    }
    for (const std::int64_t b : {std::int64_t{1} << 39, std::int64_t{1} << 40}) {
      const NcclPrediction pr = predict(sys, Bytes(b), o);
      EXPECT_GE(pr.busbw_GBps, lo * 0.98) << release << " at " << b << " B";
      EXPECT_LE(pr.busbw_GBps, hi * 1.02) << release << " at " << b << " B";
      EXPECT_EQ(pr.chosen.channels, predict(sys, Bytes(std::int64_t{1} << 38), o).chosen.channels)
          << release;
    }
  }
  // Past the limit the predictor refuses instead of computing (predict --sizes 2^63-1).
  EXPECT_FALSE(NcclPredictor(p4d(2), default_params(), {})
                   .predict(Collective::Allreduce, Bytes((std::int64_t{1} << 40) + 4))
                   .has_value());
}

TEST(NcclChannels, UserBoundsApplyToTheCommunicator) {
  NcclOptions one;
  one.max_channels = 1;
  EXPECT_EQ(NcclPredictor(dgx_a100(1), default_params(), one).graphs().comm_channels, 1);
  NcclOptions many;
  many.min_channels = 1000;
  const NcclPredictor big(dgx_a100(1), default_params(), many);
  EXPECT_EQ(big.graphs().comm_channels, 64);  // MAXCHANNELS of 2.25+
  EXPECT_EQ(big.evaluate(Collective::Allreduce, Bytes(1 << 30), NcclAlgo::Ring, NcclProto::Simple)
                .channels,
            64);
  // NVLS keeps its own count (NVLS_NCHANNELS 16 on Hopper).
  const NcclPredictor h100(dgx_h100(1), default_params(), many);
  EXPECT_EQ(h100.evaluate(Collective::Allreduce, Bytes(1 << 30), NcclAlgo::Nvls, NcclProto::Simple)
                .channels,
            16);
}

}  // namespace
}  // namespace topotune::algo
