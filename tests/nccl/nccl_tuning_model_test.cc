// NCCL's cost model by release, against the choices real NCCL runs printed
// ("AllReduce: N Bytes -> Algo A proto P channel{Lo..Hi}" with NCCL_DEBUG_SUBSYS=TUNING).

#include "algorithms/nccl/nccl_tuning_model.h"

#include <gtest/gtest.h>

#include <string>

#include "algorithms/nccl/nccl_predictor.h"
#include "tests/nccl/test_systems.h"

namespace topotune::algo {
namespace {

using sched::Collective;

std::string choice(const NcclSystem& s, double bytes, const char* v = "2.30.7") {
  NcclOptions o;
  o.version = parse_nccl_version(v).value();
  const NcclPrediction p =
      NcclPredictor(s, default_params(), o)
          .predict(Collective::Allreduce, Bytes(static_cast<std::int64_t>(bytes)))
          .value();
  return std::string(nccl_algo_name(p.chosen.algo)) + "/" + nccl_proto_name(p.chosen.proto) + "/" +
         std::to_string(p.chosen.channels);
}

constexpr double KiB = 1024, MiB = 1024 * KiB;

// "Inside NCCL's all-reduce: ring, double binary tree, or neither?" (2026-08-02), NCCL 2.30.7
// TUNING lines on 1 x 8 H100: Ring/LL up to 1 MiB ("channel{Lo..Hi}={0..23}" at 1048576
// bytes), NVLS/Simple from 2 MiB ("={0..15}").
TEST(NcclChoice, OneH100NodeOn2_30_7) {
  EXPECT_EQ(choice(testing::dgx_h100(1), 4096), "ring/LL/1");
  EXPECT_EQ(choice(testing::dgx_h100(1), 1 * MiB), "ring/LL/24");
  EXPECT_EQ(choice(testing::dgx_h100(1), 2 * MiB), "nvls/Simple/16");
  EXPECT_EQ(choice(testing::dgx_h100(1), 4096 * MiB), "nvls/Simple/16");
}

// The same source, 2 x 8 H200 over EFA (p5en): Tree/LL to 128 KiB, Tree/LL128 256 KiB to
// 8 MiB, Ring/LL128 at 16 MiB, NVLSTree/Simple from 32 MiB. The plugin's reported latency
// (35 us on p5en) is what pushes NVLSTree up to 32 MiB.
TEST(NcclChoice, TwoP5enNodesOn2_30_7) {
  const NcclSystem s = testing::p5en(2);
  EXPECT_EQ(choice(s, 128 * KiB).substr(0, 7), "tree/LL");
  EXPECT_EQ(choice(s, 256 * KiB).substr(0, 10), "tree/LL128");
  EXPECT_EQ(choice(s, 8 * MiB).substr(0, 10), "tree/LL128");
  EXPECT_EQ(choice(s, 16 * MiB).substr(0, 10), "ring/LL128");
  EXPECT_EQ(choice(s, 32 * MiB).substr(0, 16), "nvls_tree/Simple");
}

// 4 x 8 H200 over EFA: Tree to 16 MiB, Ring/LL128 from 32 MiB, Ring/Simple from 512 MiB
// (the AWS region tuner decides past two nodes).
TEST(NcclChoice, FourP5enNodesOn2_30_7) {
  const NcclSystem s = testing::p5en(4);
  EXPECT_EQ(choice(s, 16 * MiB).substr(0, 10), "tree/LL128");
  EXPECT_EQ(choice(s, 32 * MiB).substr(0, 10), "ring/LL128");
  EXPECT_EQ(choice(s, 256 * MiB).substr(0, 10), "ring/LL128");
  EXPECT_EQ(choice(s, 512 * MiB).substr(0, 11), "ring/Simple");
}

// 2 x 8 H100 over EFA (p5: the plugin reports 75 us): "same map but LL->LL128 at 128 KiB and
// NVLS_TREE from 64 MiB".
TEST(NcclChoice, TwoP5NodesOn2_30_7) {
  const NcclSystem s = testing::p5(2);
  EXPECT_EQ(choice(s, 128 * KiB).substr(0, 10), "tree/LL128");
  EXPECT_EQ(choice(s, 32 * MiB).substr(0, 4), "ring");
  EXPECT_EQ(choice(s, 64 * MiB).substr(0, 16), "nvls_tree/Simple");
}

TEST(NcclTuning, ReleasesDiffer) {
  // v2.12.7 .. v2.22.3 counted 2 x nNodes network steps in the ring's latency (2(nNodes-1)
  // before and after).
  NcclTuningInputs in;
  in.ranks = 32;
  in.nodes = 4;
  in.cc = 80;
  in.amd_cpu = true;
  in.graphs = nccl_search(nccl_node_view(testing::dgx_a100(4), 22304), 22304, 4, false, true, 0);
  in.release = 22304;
  const NcclTuningTable t23 = nccl_tune(in, Collective::Allreduce);
  in.release = 22203;
  const NcclTuningTable t22 = nccl_tune(in, Collective::Allreduce);
  const int ring = static_cast<int>(NcclAlgo::Ring), ll = static_cast<int>(NcclProto::LL);
  // 2.22 has 2 more network steps (2.7 us each, LL) and 2 fewer NVLink steps (max(0.6, the
  // AMD network overhead 2.0) us each).
  EXPECT_NEAR(t22.latency_us[ring][ll] - t23.latency_us[ring][ll], 2 * 2.7 - 2 * 2.0, 1e-9);
  // The Ring/LL bandwidth factor went from 1/4 to 1/2 in v2.21.5 (under the llMaxBw cap:
  // 2 p4d nodes, 4 x 12 GB/s x 1/4 = 12 and x 1/2 = 24, both below Intel's 39).
  NcclTuningInputs p4d;
  p4d.ranks = 16;
  p4d.nodes = 2;
  p4d.cc = 80;
  p4d.graphs = nccl_search(nccl_node_view(testing::p4d(2), 22005), 22005, 2, false, true, 0);
  p4d.release = 22005;
  const double bw20 = nccl_tune(p4d, Collective::Allreduce).bandwidth_GBps[ring][ll];
  p4d.release = 22105;
  const double bw21 = nccl_tune(p4d, Collective::Allreduce).bandwidth_GBps[ring][ll];
  EXPECT_NEAR(bw20, 12.0 * 16 / 30, 1e-9);
  EXPECT_NEAR(bw21, 24.0 * 16 / 30, 1e-9);
}

TEST(NcclTuning, PlateauFactorRaisesRingSimpleLatencyAcrossNodes) {
  NcclTuningInputs in;
  in.release = kLatestModeledRelease;
  in.ranks = 16;
  in.nodes = 2;
  in.cc = 90;
  in.graphs =
      nccl_search(nccl_node_view(testing::dgx_h100(2), in.release), in.release, 2, true, true, 0);
  const NcclTuningTable t = nccl_tune(in, Collective::Allreduce);
  const double lat = t.latency_us[0][2];
  const double small =
      nccl_algo_time_us(in, t, Collective::Allreduce, NcclAlgo::Ring, NcclProto::Simple, 1024);
  const double big =
      nccl_algo_time_us(in, t, Collective::Allreduce, NcclAlgo::Ring, NcclProto::Simple, 1 << 20);
  EXPECT_NEAR(small - 1024 / (1000 * t.bandwidth_GBps[0][2]), lat, 1e-6);
  EXPECT_NEAR(big - (1 << 20) / (1000 * t.bandwidth_GBps[0][2]), 1.4 * lat, 1e-6);
}

}  // namespace
}  // namespace topotune::algo
