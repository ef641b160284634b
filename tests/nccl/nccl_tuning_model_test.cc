// NCCL's cost model by release, against the choices real NCCL runs printed
// ("AllReduce: N Bytes -> Algo A proto P channel{Lo..Hi}" with NCCL_DEBUG_SUBSYS=TUNING).

#include "algorithms/nccl/nccl_tuning_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "algorithms/nccl/nccl_enqueue.h"
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

// All-gather and reduce-scatter: Ring and, on one node, NVLS (src/graph/tuning.cc and
// src/enqueue.cc by release); never Tree or NVLSTree.
TEST(NcclTuning, NvlsAllGatherAndReduceScatterByRelease) {
  NcclTuningInputs in;
  in.ranks = 8;
  in.nodes = 1;
  in.cc = 90;
  in.nvls_support = true;
  const int nvls = static_cast<int>(NcclAlgo::Nvls), simple = static_cast<int>(NcclProto::Simple);
  const auto tune = [&in](int release, Collective c) {
    in.release = release;
    in.graphs =
        nccl_search(nccl_node_view(testing::dgx_h100(1), release), release, 1, true, true, 0);
    return nccl_tune(in, c);
  };
  for (Collective c : {Collective::Allgather, Collective::ReduceScatter}) {
    EXPECT_NE(tune(21806, c).why_disabled[nvls][simple], nullptr);  // 2.18.6: Ring only
    EXPECT_NE(tune(22903, c).why_disabled[static_cast<int>(NcclAlgo::Tree)][simple], nullptr);
    EXPECT_NE(tune(22903, c).why_disabled[static_cast<int>(NcclAlgo::NvlsTree)][simple], nullptr);
    // v2.19.3-1 .. v2.22.3-1: nChannels x min(bwIntra, bwInter) x 5/6, like the allreduce.
    NcclTuningTable t = tune(21903, c);
    ASSERT_EQ(t.why_disabled[nvls][simple], nullptr);
    const NcclGraph g19 = in.graphs.nvls;
    EXPECT_NEAR(t.bandwidth_GBps[nvls][simple],
                g19.channels * std::min(g19.bw_intra, g19.bw_inter) * 5.0 / 6.0, 1e-9);
    // v2.23.4-1 .. v2.27.x: the same bus bandwidth, no longer converted.
    t = tune(22304, c);
    EXPECT_NEAR(
        t.bandwidth_GBps[nvls][simple],
        in.graphs.nvls.channels * std::min(in.graphs.nvls.bw_intra, in.graphs.nvls.bw_inter), 1e-9);
    // v2.28.3-1 on: bwIntra x nvlsEfficiency (Hopper 0.85) x (nc-1)/nc x (ppn-1)/ppn per channel.
    t = tune(22903, c);
    const NcclGraph g = in.graphs.nvls;
    const double intra = g.bw_intra * 0.85 * (g.channels - 1) / g.channels * 7.0 / 8.0;
    EXPECT_NEAR(t.bandwidth_GBps[nvls][simple], g.channels * std::min(intra, g.bw_inter), 1e-6);
  }
  // At most NCCL_MAX_NVLS_ARITY (32) ranks per node from v2.25.1-1 (a 72-GPU NVLink domain is
  // one node to NCCL under MNNVL).
  in.ranks = 72;
  in.release = 22403;
  EXPECT_EQ(nccl_tune(in, Collective::Allgather).why_disabled[nvls][simple], nullptr);
  in.release = 22501;
  EXPECT_NE(nccl_tune(in, Collective::Allgather).why_disabled[nvls][simple], nullptr);
  // Across nodes only with CollNet, which is not modelled.
  in.ranks = 16;
  in.nodes = 2;
  in.release = 22903;
  in.graphs = nccl_search(nccl_node_view(testing::dgx_h100(2), 22903), 22903, 2, true, true, 0);
  EXPECT_NE(nccl_tune(in, Collective::Allgather).why_disabled[nvls][simple], nullptr);
}

// LL128 by default (tuning.cc): compute capabilities 70, 80, 90 to v2.24; 100 and 120 added in
// v2.25.1-1; every one from 70 up from v2.27.3-1, so GB300/B300 (sm_103) only then.
TEST(NcclTuning, Ll128ByComputeCapabilityAndRelease) {
  NcclTuningInputs in;
  in.ranks = 16;
  in.nodes = 2;
  in.graphs = nccl_search(nccl_node_view(testing::dgx_h100(2), 22903), 22903, 2, true, true, 0);
  const int ring = static_cast<int>(NcclAlgo::Ring), ll128 = static_cast<int>(NcclProto::LL128);
  const auto on = [&in, ring, ll128](int cc, int release) {
    in.cc = cc;
    in.release = release;
    return nccl_tune(in, Collective::Allreduce).why_disabled[ring][ll128] == nullptr;
  };
  EXPECT_TRUE(on(90, 22403));
  EXPECT_FALSE(on(100, 22403));
  EXPECT_TRUE(on(100, 22501));
  EXPECT_FALSE(on(103, 22501));
  EXPECT_FALSE(on(103, 22606));
  EXPECT_TRUE(on(103, 22703));
  EXPECT_TRUE(on(100, 22903));
}

// The compute capability NCCL sees: Blackwell is 10.0, but 10.3 for GB300 and B300.
TEST(NcclSystem, BlackwellUltraIsSm103) {
  topo::InstanceSpec inst =
      testing::nvswitch_instance("gb", topo::GpuArch::Blackwell, 18, true, 8, 400,
                                 topo::NetTransport::InfiniBand, 0, 63, "Intel");
  for (const auto& [model, cc] :
       {std::pair{"GB200", 100}, {"B200", 100}, {"GB300", 103}, {"B300", 103}}) {
    inst.gpu.model = model;
    EXPECT_EQ(testing::system_of(inst, 2).cc, cc) << model;
  }
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

// PAT (tuning.cc, v2.23.4-1 on): all-gather and reduce-scatter, Simple only, one GPU per node
// and no net device offload (ncclPatEnable); the tree graph's channels x bandwidth x .85
// (v2.23.4-1) or x .75 (v2.24.3-1 on), unconverted; latency 8 + log2i(nodes) x interLat / 3.5
// + nRanks x 2.8, interLat the Tree row's network Simple latency (14 us) plus the graph's
// inter-node latency twice (the flush).
TEST(NcclTuning, PatOnOneGpuPerNodeByRelease) {
  topo::InstanceSpec inst = testing::h100_one_gpu_per_node();
  const int pat = static_cast<int>(NcclAlgo::Pat), simple = static_cast<int>(NcclProto::Simple);
  const auto inputs = [&inst](int release, int nodes) {
    NcclTuningInputs in;
    in.release = release;
    in.ranks = nodes * inst.num_gpus;
    in.nodes = nodes;
    in.cc = 90;
    in.graphs = nccl_search(nccl_node_view(testing::system_of(inst, nodes), release), release,
                            nodes, false, true, 0);
    return in;
  };
  NcclTuningInputs in = inputs(22203, 8);
  EXPECT_NE(nccl_tune(in, Collective::Allgather).why_disabled[pat][simple], nullptr);
  for (const auto& [release, factor] : {std::pair{22304, .85}, {22403, .75}, {22903, .75}}) {
    in = inputs(release, 8);
    const NcclGraph& tree = in.graphs.tree;
    ASSERT_GT(tree.channels, 0);
    const double inter = 14.0 + 2 * tree.latency_inter_us;
    for (Collective c : {Collective::Allgather, Collective::ReduceScatter}) {
      const NcclTuningTable t = nccl_tune(in, c);
      ASSERT_EQ(t.why_disabled[pat][simple], nullptr) << release;
      EXPECT_NEAR(t.bandwidth_GBps[pat][simple], tree.channels * tree.bw_inter * factor, 1e-9);
      EXPECT_NEAR(t.latency_us[pat][simple], 8 + 3 * inter / 3.5 + 8 * 2.8, 1e-9) << release;
      EXPECT_NE(t.why_disabled[pat][static_cast<int>(NcclProto::LL)], nullptr);
      EXPECT_NE(t.why_disabled[pat][static_cast<int>(NcclProto::LL128)], nullptr);
    }
    EXPECT_NE(nccl_tune(in, Collective::Allreduce).why_disabled[pat][simple], nullptr);
    EXPECT_NE(nccl_tune(in, Collective::Broadcast).why_disabled[pat][simple], nullptr);
  }
  in.net_device_offload = true;  // GPUDirect-TCPX's unpack kernel
  EXPECT_NE(nccl_tune(in, Collective::Allgather).why_disabled[pat][simple], nullptr);
  inst.num_gpus = inst.num_nics = 2;  // two GPUs per node
  in = inputs(22903, 8);
  EXPECT_NE(nccl_tune(in, Collective::Allgather).why_disabled[pat][simple], nullptr);
}

// What PAT is for: on one GPU per node NCCL's estimate takes it where its log-depth latency
// beats Ring's n-1 network steps, and leaves the large sizes to Ring (x .75 bandwidth).
TEST(NcclChoice, PatForSmallAllGathersOnOneGpuPerNode) {
  const topo::InstanceSpec inst = testing::h100_one_gpu_per_node();
  NcclOptions o;
  o.version = parse_nccl_version("2.29.2").value();
  const NcclPredictor pr(testing::system_of(inst, 16), default_params(), o);
  const auto algo = [&pr](Collective c, double bytes) {
    return pr.predict(c, Bytes(static_cast<std::int64_t>(bytes))).value().chosen.algo;
  };
  for (Collective c : {Collective::Allgather, Collective::ReduceScatter}) {
    EXPECT_EQ(algo(c, 1 * MiB), NcclAlgo::Pat);
    EXPECT_EQ(algo(c, 1024 * MiB), NcclAlgo::Ring);
  }
  EXPECT_NE(algo(Collective::Allreduce, 1 * MiB), NcclAlgo::Pat);
}

// enqueue.cc: tuning.cc sets no maxThreads for PAT, so the size loop that trims Ring's and
// Tree's channels (bytes < nc x nThreads x threshold) never trims PAT's; only the
// minimum traffic per channel does (16 KiB cells in v2.23.4-1 .. v2.28.9-1).
TEST(NcclEnqueue, PatKeepsItsChannelsDownToTheTrafficCells) {
  NcclLaunchInputs in;
  in.release = 22501;
  in.ranks = in.nodes = 8;
  in.graphs.comm_channels = 8;
  // Ring/Simple at 64 KiB: 256 threads (the empty graph is PCIe-class) x 64 bytes per thread
  // leaves 4 channels; PAT keeps 8 (eight 8 KiB cells), and 5 at 40 KiB (five cells).
  EXPECT_EQ(nccl_run_channels(in, NcclAlgo::Ring, NcclProto::Simple, 64 * KiB), 4);
  EXPECT_EQ(nccl_run_channels(in, NcclAlgo::Pat, NcclProto::Simple, 64 * KiB), 8);
  EXPECT_EQ(nccl_run_channels(in, NcclAlgo::Pat, NcclProto::Simple, 40 * KiB), 5);
}

// enqueue.cc computeColl: NCCL_NVLS_CHUNKSIZE exists from v2.21.5-1. Before, NVLS and NVLSTree
// started from a Simple step (4 MiB / 8 = 512 KiB), NVLS capped at 128 KiB, NVLSTree at 64 KiB
// on 4+ nodes (v2.19.3-1 on; NCCL_NVLSTREE_MAX_CHUNKSIZE from v2.20.3-1). A size large enough
// for no halving shows the starting chunk.
TEST(NcclEnqueue, NvlsChunksStartWhereTheReleaseStartsThem) {
  NcclLaunchInputs in;
  in.graphs.nvls.channels = 8;
  const double big = 64.0 * 1024 * MiB;
  const auto chunk = [&in, big](int release, int nodes, NcclAlgo a) {
    in.release = release;
    in.nodes = nodes;
    return nccl_nvls_chunk_bytes(in, a, big, 16);
  };
  EXPECT_EQ(chunk(22105, 2, NcclAlgo::NvlsTree), 128 * KiB);  // NCCL_NVLS_CHUNKSIZE's default
  EXPECT_EQ(chunk(22003, 2, NcclAlgo::NvlsTree), 512 * KiB);  // a Simple step
  EXPECT_EQ(chunk(22003, 4, NcclAlgo::NvlsTree), 64 * KiB);
  EXPECT_EQ(chunk(21903, 4, NcclAlgo::NvlsTree), 64 * KiB);
  EXPECT_EQ(chunk(21901, 4, NcclAlgo::NvlsTree), 512 * KiB);  // no cap yet
  EXPECT_EQ(chunk(22003, 1, NcclAlgo::Nvls), 128 * KiB);
  // aws-ofi-nccl's 512 KiB NCCL_NVLS_CHUNKSIZE takes effect where NCCL reads it.
  in.buffers.nvls_chunk_bytes = 512 * KiB;
  EXPECT_EQ(chunk(22105, 1, NcclAlgo::Nvls), 512 * KiB);
  EXPECT_EQ(chunk(22003, 1, NcclAlgo::Nvls), 128 * KiB);
}

}  // namespace
}  // namespace topotune::algo
