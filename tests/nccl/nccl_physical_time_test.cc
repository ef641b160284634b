// The physical time of NCCL's choice, solved by hand on simple parameters.

#include "algorithms/nccl/nccl_physical_time.h"

#include <gtest/gtest.h>

#include <cmath>

#include "algorithms/nccl/nccl_predictor.h"
#include "algorithms/nccl/nccl_system.h"
#include "tests/nccl/test_systems.h"

namespace topotune::algo {
namespace {

using sched::Collective;

NcclModelParams simple_params() {
  NcclModelParams p = default_params();
  p.nvlink_efficiency = 0.5;
  p.nvls_efficiency = 0.5;
  p.ring_simple_engine = 1.0;
  p.base_latency_scale = 1.0;
  p.nvlink_latency_scale = 1.0;
  p.launch_overhead_per_gpu_us = 0.0;
  p.nvls_latency_us = 20.0;
  p.nvls_chunk_latency_us = 0.5;
  return p;
}

TEST(NcclPhysicalTime, RingSimpleOnOneA100Node) {
  // 8 A100 on an NVSwitch, 12 x 25 GB/s each: NVLink 300 x 0.5 = 150 GB/s. Ring/Simple
  // latency from NCCL 2.30.7's table: base 8.4 us + 14 steps x 3.4 us = 56 us.
  // S = 96e6 B: volume 2 x 7/8 x S = 168e6 B.
  // 24 channels (NCCL's 12 searched x 2) x 24 GB/s engine exceed NVLink: 168e6 B / 150 GB/s =
  // 1120 us; total 1176 us.
  const NcclPredictor all(testing::dgx_a100(1), simple_params(), {});
  const NcclCandidate c =
      all.evaluate(Collective::Allreduce, Bytes(96000000), NcclAlgo::Ring, NcclProto::Simple);
  EXPECT_EQ(c.channels, 24);
  EXPECT_NEAR(c.time.us(), 1176.0, 1e-6);
  EXPECT_NEAR(c.latency.us(), 56.0, 1e-9);
  EXPECT_EQ(c.bottleneck, "NVLink");
  // NCCL_MAX_NCHANNELS=4: 4 engines x 24 GB/s (perChMaxTreeBws Ampere one node) = 96 GB/s;
  // 168e6 / 96e9 = 1750 us; total 1806 us.
  NcclOptions four;
  four.max_channels = 4;
  const NcclCandidate c4 =
      NcclPredictor(testing::dgx_a100(1), simple_params(), four)
          .evaluate(Collective::Allreduce, Bytes(96000000), NcclAlgo::Ring, NcclProto::Simple);
  EXPECT_EQ(c4.channels, 4);
  EXPECT_NEAR(c4.time.us(), 1806.0, 1e-6);
  EXPECT_EQ(c4.bottleneck, "engine");
}

TEST(NcclPhysicalTime, NvlsOnOneH100Node) {
  // In-switch reduction at 450 x 0.5 = 225 GB/s (16 channels x 38.7 GB/s engines exceed it).
  // Latency: NCCL's tree Simple base 8.4 us + NVLS 20 us = 28.4 us. 1 GiB in 128 KiB chunks
  // (NCCL_NVLS_CHUNKSIZE; 1 GiB is not below 64 x 16 x 8 chunks) on 16 channels: 512 chunks
  // per channel at 0.5 us = 256 us; bandwidth 1073741.824 / 225 = 4772.1859 us; the second
  // hop of one chunk per channel 131.072 x 16 / 225 = 9.3207 us. Total 5065.9066 us.
  const NcclPredictor pr(testing::dgx_h100(1), simple_params(), {});
  const NcclCandidate c =
      pr.evaluate(Collective::Allreduce, Bytes(1 << 30), NcclAlgo::Nvls, NcclProto::Simple);
  EXPECT_EQ(c.channels, 16);
  const double expected = 28.4 + 1073741.824 / 225 + 131.072 * 16 / 225 + 512 * 0.5;
  EXPECT_NEAR(c.time.us(), expected, 1e-6);
  EXPECT_EQ(c.bottleneck, "NVLS");
}

// All-gather over NVLS receives the whole buffer through each GPU's NVLink (no in-switch
// reduction): the bandwidth is the NVLink's, 450 x 0.5 = 225 GB/s, not the allreduce's NVLS
// rate (450 x 0.3 here); otherwise the time is the allreduce's above, term by term. Ring's
// all-gather moves 7/8 of the buffer at the same rate, so it is faster for large buffers.
TEST(NcclPhysicalTime, NvlsAllGatherOnOneH100NodeMovesTheWholeBufferAtNvlinkRate) {
  NcclModelParams p = simple_params();
  p.nvls_efficiency = 0.3;
  const NcclPredictor pr(testing::dgx_h100(1), p, {});
  for (Collective c : {Collective::Allgather, Collective::ReduceScatter}) {
    const NcclCandidate nvls = pr.evaluate(c, Bytes(1 << 30), NcclAlgo::Nvls, NcclProto::Simple);
    ASSERT_TRUE(nvls.enabled) << nvls.why_disabled;
    EXPECT_EQ(nvls.channels, 16);
    const double expected = 28.4 + 1073741.824 / 225 + 131.072 * 16 / 225 + 512 * 0.5;
    EXPECT_NEAR(nvls.time.us(), expected, 1e-6);
    const NcclCandidate ring = pr.evaluate(c, Bytes(1 << 30), NcclAlgo::Ring, NcclProto::Simple);
    EXPECT_LT(ring.time.us(), nvls.time.us());
  }
}

TEST(NcclPhysicalTime, NetworkBoundsRingAcrossNodesAndTreeExceedsItAtTwoNodes) {
  // A ring's busbw is bounded by the node's NICs; a tree at two nodes sends the buffer once
  // per node (not 2(n-1)/n of it), so its busbw can exceed the NICs' line rate.
  NcclModelParams p = simple_params();
  p.nvlink_efficiency = 1.0;
  p.net_efficiency[static_cast<int>(NicClass::InfiniBand)] = 1.0;
  p.net_efficiency[static_cast<int>(NicClass::EfaSrd)] = 1.0;
  const Bytes big(std::int64_t{8} << 30);
  const double factor = 2.0 * 15 / 16;  // busbw = algbw x 2(n-1)/n at 16 ranks
  const NcclCandidate ring =
      NcclPredictor(testing::dgx_a100(2), p, {})
          .evaluate(Collective::Allreduce, big, NcclAlgo::Ring, NcclProto::Simple);
  EXPECT_EQ(ring.bottleneck, "network");
  EXPECT_NEAR(big.value / ring.time.value / 1e9 * factor, 200.0, 2.0);  // 8 x 200 Gbps
  const NcclCandidate tree =
      NcclPredictor(testing::p4d(2), p, {})
          .evaluate(Collective::Allreduce, big, NcclAlgo::Tree, NcclProto::Simple);
  EXPECT_GT(big.value / tree.time.value / 1e9 * factor, 50.0);  // 4 x 100 Gbps
}

// Latencies reduced to the network hops alone: no base, launch or NVLink latency, 10 us per
// network hop (InfiniBand's NIC latency; NCCL's table share scaled to 0).
NcclModelParams network_hops_only() {
  NcclModelParams p = simple_params();
  p.base_latency_scale = 0.0;
  p.nvlink_latency_scale = 0.0;
  p.net_latency_scale = 0.0;
  p.nic_latency_us[static_cast<int>(NicClass::InfiniBand)] = 10.0;
  return p;
}

NcclSystem dgx_h100_with(int gpus, int nodes) {
  topo::InstanceSpec inst =
      testing::nvswitch_instance("dgx-h100", topo::GpuArch::Hopper, 18, true, 8, 400,
                                 topo::NetTransport::InfiniBand, 0, 63, "Intel Xeon 8480C");
  inst.num_gpus = gpus;
  inst.num_nics = gpus;
  return testing::system_of(inst, nodes);
}

TEST(NcclPhysicalTime, RingLatencyCountsTheNetworkLinksOfTheSlowestChunksPath) {
  // 3 nodes: a ring of 3g links, one leaving each node. All-gather's chunks take 3g-1 hops, so
  // with g >= 2 one of them skips an NVLink link and crosses all 3 network links (30 us); with
  // one GPU per node every link is the network's and each chunk crosses 2 (20 us). Allreduce's
  // 2(3g-1) hops skip two links of the second lap: two NVLink links (6 network hops, 60 us)
  // need g >= 3; with g = 2 one of the two is a network link (50 us); with g = 1, 4 (40 us).
  // LL: no proxy pace; 4 KiB: the volume adds well under a microsecond.
  const NcclModelParams p = network_hops_only();
  const Bytes small(4096);
  const struct {
    int gpus;
    double allgather_us, allreduce_us;
  } cases[] = {{8, 30, 60}, {2, 30, 50}, {1, 20, 40}};
  for (const auto& k : cases) {
    const NcclPredictor pr(dgx_h100_with(k.gpus, 3), p, {});
    const NcclCandidate ag =
        pr.evaluate(Collective::Allgather, small, NcclAlgo::Ring, NcclProto::LL);
    const NcclCandidate ar =
        pr.evaluate(Collective::Allreduce, small, NcclAlgo::Ring, NcclProto::LL);
    EXPECT_NEAR(ag.latency.us(), k.allgather_us, 1e-9) << k.gpus << " GPUs per node";
    EXPECT_NEAR(ar.latency.us(), k.allreduce_us, 1e-9) << k.gpus << " GPUs per node";
  }
}

TEST(NcclPhysicalTime, Ll128RingAcrossNodesIsPacedByItsNetworkSteps) {
  // 2 x 8 H100: all-gather's 15 steps a channel, each at least ring_net_step_us at the GPU
  // whose ring leaves the node. 1 MiB: one loop, 15 x 20 us = 300 us, far above the hops
  // (20 us) and the volume.
  NcclModelParams p = network_hops_only();
  p.ring_net_step_us.fill(20.0);
  const Bytes mib(1 << 20);
  const NcclCandidate c =
      NcclPredictor(testing::dgx_h100(2), p, {})
          .evaluate(Collective::Allgather, mib, NcclAlgo::Ring, NcclProto::LL128);
  EXPECT_NEAR(c.time.us(), 300.0, 1e-9);
  EXPECT_EQ(c.bottleneck, "proxy");
  // Allreduce takes twice the steps.
  EXPECT_NEAR(NcclPredictor(testing::dgx_h100(2), p, {})
                  .evaluate(Collective::Allreduce, mib, NcclAlgo::Ring, NcclProto::LL128)
                  .time.us(),
              600.0, 1e-9);
  // A loop moves channels x 16 ranks x 576,000 bytes: 4 GiB takes ceil(4 GiB / that) loops of
  // 15 steps each (1000 us a step so that the pace stays above the volume).
  p.ring_net_step_us.fill(1000.0);
  const Bytes big(std::int64_t{4} << 30);
  const NcclCandidate l =
      NcclPredictor(testing::dgx_h100(2), p, {})
          .evaluate(Collective::Allgather, big, NcclAlgo::Ring, NcclProto::LL128);
  const double loops = std::ceil(static_cast<double>(big.value) / (l.channels * 16 * 576000.0));
  EXPECT_GT(loops, 1);
  EXPECT_NEAR(l.time.us(), 15 * loops * 1000.0, 1e-6);
}

TEST(NcclPhysicalTime, SimpleRingsAcrossTcpxWaitForThePluginsSleepEverySlice) {
  // 2 x 8 H100 over GPUDirect-TCPX (A3 High: 4 x 200 Gbps). Every all-gather step of a channel
  // is one send of at most a slice (2 x 512 KiB) across the node's edge, and each waits out
  // one sleep of the plugin's socket thread: 1 MiB is 15 steps x 1 slice x 50 us = 750 us,
  // far above the hops (2 x 10 us) and the volume (983,040 B at 100 GB/s x 0.6: 16 us).
  const NcclSystem a3high = testing::system_of(
      testing::nvswitch_instance("a3-highgpu-8g", topo::GpuArch::Hopper, 18, true, 4, 200,
                                 topo::NetTransport::GpuDirectTcpx, 0, 63, "Intel Xeon 8481C"),
      2);
  ASSERT_EQ(a3high.nic_class, NicClass::Tcpx);
  NcclModelParams p = network_hops_only();
  p.nic_latency_us[static_cast<int>(NicClass::Tcpx)] = 10.0;
  p.net_efficiency[static_cast<int>(NicClass::Tcpx)] = 0.6;
  p.ring_net_step_us.fill(0.0);
  p.tcpx_tx_sleep_us = 50.0;
  auto run = [&](const NcclSystem& s, Collective c, Bytes b, NcclProto proto) {
    return NcclPredictor(s, p, {}).evaluate(c, b, NcclAlgo::Ring, proto);
  };
  const Bytes mib(1 << 20);
  const NcclCandidate ag = run(a3high, Collective::Allgather, mib, NcclProto::Simple);
  EXPECT_NEAR(ag.time.us(), 750.0, 1e-9);
  EXPECT_EQ(ag.bottleneck, "TCPX sleep");
  // Allreduce: 30 steps.
  EXPECT_NEAR(run(a3high, Collective::Allreduce, mib, NcclProto::Simple).time.us(), 1500.0, 1e-9);
  // A channel moves one slice of each of the 16 ranks' shares per step: 4 GiB takes
  // ceil(4 GiB / (channels x 16 x 1 MiB)) slices a step (1000 us a sleep keeps the pace above
  // the volume).
  p.tcpx_tx_sleep_us = 1000.0;
  const Bytes big(std::int64_t{4} << 30);
  const NcclCandidate l = run(a3high, Collective::Allgather, big, NcclProto::Simple);
  const double slices = std::ceil(static_cast<double>(big.value) / (l.channels * 16 * 1048576.0));
  EXPECT_GT(slices, 1);
  EXPECT_NEAR(l.time.us(), 15 * slices * 1000.0, 1e-6);
  // Only Simple rings across TCPX sleep: not LL128 there, not Simple over InfiniBand.
  p.tcpx_tx_sleep_us = 50.0;
  EXPECT_LT(run(a3high, Collective::Allgather, mib, NcclProto::LL128).time.us(), 100.0);
  EXPECT_LT(run(testing::dgx_h100(2), Collective::Allgather, mib, NcclProto::Simple).time.us(),
            100.0);
}

TEST(NcclPhysicalTime, Ll128RingEnginesRunAtNcclsPerCollectiveCeilings) {
  // One DGX H100, LL128 rings held to their engines (a tenth of the fitted rate): all-gather and
  // reduce-scatter move the same bytes through the same steps, so their times beyond the
  // latency stand as NCCL 2.8.3's ceilings do, 18.3 to 15.2 GB/s a channel; allreduce (16.9)
  // moves twice the bytes.
  NcclModelParams p = simple_params();
  p.ring_ll128_engine = 0.1;
  const NcclPredictor one(testing::dgx_h100(1), p, {});
  const Bytes b(std::int64_t{1} << 28);
  auto body_us = [&](Collective c) {
    const NcclCandidate k = one.evaluate(c, b, NcclAlgo::Ring, NcclProto::LL128);
    EXPECT_EQ(k.bottleneck, "engine");
    return k.time.us() - k.latency.us();
  };
  const double ag = body_us(Collective::Allgather), rs = body_us(Collective::ReduceScatter);
  const double ar = body_us(Collective::Allreduce);
  EXPECT_NEAR(rs / ag, 18.3 / 15.2, 1e-9);
  EXPECT_NEAR(ar / ag, 2 * 18.3 / 16.9, 1e-9);
}

TEST(NcclPhysicalTime, TheProxyPaceIsThatOfTheClustersNicClass) {
  // The step time of the ring's NIC class, no other: DGX H100 is InfiniBand (15 steps x 20 us at
  // 1 MiB), p5 is EFA with RDMA write (15 x 30 us); an InfiniBand step time leaves p5 alone.
  NcclModelParams p = network_hops_only();
  p.ring_net_step_us.fill(0.0);
  p.ring_net_step_us[static_cast<int>(NicClass::InfiniBand)] = 20.0;
  p.ring_net_step_us[static_cast<int>(NicClass::EfaRdma)] = 30.0;
  const Bytes mib(1 << 20);
  auto paced = [&](const NcclSystem& s) {
    return NcclPredictor(s, p, {}).evaluate(Collective::Allgather, mib, NcclAlgo::Ring,
                                            NcclProto::LL128);
  };
  EXPECT_NEAR(paced(testing::dgx_h100(2)).time.us(), 300.0, 1e-9);
  EXPECT_NEAR(paced(testing::p5(2)).time.us(), 450.0, 1e-9);
  p.ring_net_step_us[static_cast<int>(NicClass::EfaRdma)] = 0.0;
  EXPECT_LT(paced(testing::p5(2)).time.us(), 300.0);
  EXPECT_NE(paced(testing::p5(2)).bottleneck, "proxy");
}

TEST(NcclPhysicalTime, RoceHasItsOwnHopsAndStepsAndInfiniBandsEfficiency) {
  // The same DGX H100 nodes over RoCE: a class of its own (nic_latency_us.roce,
  // ring_net_step_us.roce), whose bandwidth efficiency is InfiniBand's (there is no
  // net_efficiency.roce to fit).
  topo::InstanceSpec inst =
      testing::nvswitch_instance("dgx-h100", topo::GpuArch::Hopper, 18, true, 8, 400,
                                 topo::NetTransport::Roce, 0, 63, "Intel Xeon 8480C");
  topo::ClusterSpec spec;
  spec.instance = inst;
  spec.hosts = 2;
  const Expected<NcclSystem> roce = nccl_system_from_cluster(spec);
  ASSERT_TRUE(roce) << roce.error().message;
  EXPECT_EQ(roce->nic_class, NicClass::Roce);
  EXPECT_EQ(find_param("net_efficiency.roce"), nullptr);
  ASSERT_NE(find_param("nic_latency_us.roce"), nullptr);
  ASSERT_NE(find_param("ring_net_step_us.roce"), nullptr);

  NcclModelParams p = network_hops_only();
  p.nic_latency_us[static_cast<int>(NicClass::Roce)] = 10.0;  // network_hops_only's InfiniBand
  p.net_efficiency[static_cast<int>(NicClass::InfiniBand)] = 0.5;
  EXPECT_DOUBLE_EQ(net_efficiency_of(p, NicClass::Roce), 0.5);
  auto time_us = [&](const NcclSystem& s, Bytes b, NcclProto proto) {
    return NcclPredictor(s, p, {})
        .evaluate(Collective::Allgather, b, NcclAlgo::Ring, proto)
        .time.us();
  };
  const NcclSystem ib = testing::dgx_h100(2);
  const Bytes small(4096), big(std::int64_t{1} << 30);
  // Equal figures, equal times; RoCE's hop latency moves the small all-gather only.
  EXPECT_DOUBLE_EQ(time_us(*roce, small, NcclProto::LL), time_us(ib, small, NcclProto::LL));
  EXPECT_DOUBLE_EQ(time_us(*roce, big, NcclProto::Simple), time_us(ib, big, NcclProto::Simple));
  p.nic_latency_us[static_cast<int>(NicClass::Roce)] = 30.0;
  EXPECT_GT(time_us(*roce, small, NcclProto::LL), time_us(ib, small, NcclProto::LL) + 20.0);
  // InfiniBand's efficiency sets RoCE's rate: halving it slows the big one on both.
  const double before = time_us(*roce, big, NcclProto::Simple);
  p.net_efficiency[static_cast<int>(NicClass::InfiniBand)] = 0.25;
  EXPECT_GT(time_us(*roce, big, NcclProto::Simple), 1.5 * before);
}

TEST(NcclPhysicalTime, NoProxyPaceWithoutTheSystemFenceOrForLlOrInsideANode) {
  NcclModelParams p = network_hops_only();
  p.ring_net_step_us.fill(20.0);
  const Bytes mib(1 << 20);
  auto time_us = [&](const NcclSystem& s, NcclProto proto, NcclOptions o = {}) {
    return NcclPredictor(s, p, o)
        .evaluate(Collective::Allgather, mib, NcclAlgo::Ring, proto)
        .time.us();
  };
  // A100 (sm_80: __threadfence, no system-scope fence), H100 under NCCL 2.16 (before the
  // fence), LL on H100, one H100 node: all well under the 300 us pace.
  EXPECT_LT(time_us(testing::dgx_a100(2), NcclProto::LL128), 100.0);
  NcclOptions v2_16;
  v2_16.version = parse_nccl_version("2.16.5").value();
  EXPECT_LT(time_us(testing::dgx_h100(2), NcclProto::LL128, v2_16), 100.0);
  EXPECT_LT(time_us(testing::dgx_h100(2), NcclProto::LL), 100.0);
  EXPECT_LT(time_us(testing::dgx_h100(1), NcclProto::LL128), 100.0);
  // From 2.17.1 on H100 it paces.
  NcclOptions v2_17;
  v2_17.version = parse_nccl_version("2.17.1").value();
  EXPECT_NEAR(time_us(testing::dgx_h100(2), NcclProto::LL128, v2_17), 300.0, 1e-9);
}

// PAT's last piece crosses ceil(log2 nodes) network hops where a ring's crosses nodes - 1; its
// bytes are Ring's, (n-1)/n of the buffer through each node's NICs.
TEST(NcclPhysicalTime, PatLatencyIsLogarithmicInNodesAndItsVolumeIsRings) {
  const NcclModelParams p = network_hops_only();
  const Bytes small(4096);
  for (const auto& [nodes, hops] : {std::pair{2, 1}, {4, 2}, {8, 3}, {9, 4}, {16, 4}}) {
    const NcclCandidate pat =
        NcclPredictor(dgx_h100_with(1, nodes), p, {})
            .evaluate(Collective::Allgather, small, NcclAlgo::Pat, NcclProto::Simple);
    ASSERT_TRUE(pat.enabled) << pat.why_disabled;
    EXPECT_NEAR(pat.latency.us(), 10.0 * hops, 1e-9) << nodes << " nodes";
  }
  NcclModelParams q = simple_params();
  q.net_efficiency[static_cast<int>(NicClass::InfiniBand)] = 1.0;
  const Bytes big(std::int64_t{8} << 30);
  const NcclPredictor pr(dgx_h100_with(1, 8), q, {});
  const NcclCandidate pat =
      pr.evaluate(Collective::ReduceScatter, big, NcclAlgo::Pat, NcclProto::Simple);
  EXPECT_EQ(pat.bottleneck, "network");
  const double busbw = big.value / (pat.time.value - pat.latency.value) / 1e9 * 7.0 / 8.0;
  EXPECT_NEAR(busbw, 50.0, 1e-6);  // one 400 Gbps NIC
}

}  // namespace
}  // namespace topotune::algo
