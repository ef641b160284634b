// Routing: intra-host paths, rail-aware inter-host paths, staging without GPUDirect RDMA.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/topology/test_instances.h"
#include "topology/topology.h"

namespace topotune::topo {
namespace {

using testing::cluster_of;

// "src>dst" device names of each hop, for readable expectations.
std::vector<std::string> hops(const Topology& t, const Route& r) {
  std::vector<std::string> out;
  for (LinkId id : r.view())
    out.push_back(t.device(t.link(id).src).name + ">" + t.device(t.link(id).dst).name);
  return out;
}

TEST(Routing, IntraHostViaNvSwitch) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 1, Placement::Cluster));
  ASSERT_TRUE(topo);
  const Route r = topo->route(topo->gpu_of(RankId(0)), topo->gpu_of(RankId(5)));
  EXPECT_EQ(hops(*topo, r),
            (std::vector<std::string>{"h0/gpu0>h0/nvswitch", "h0/nvswitch>h0/gpu5"}));
  // Two NVLink hops at the default 0.5 us each; bottleneck 300 GB/s x efficiency 0.8.
  EXPECT_DOUBLE_EQ(r.latency.value, 1e-6);
  EXPECT_DOUBLE_EQ(r.bottleneck.value, 240e9);
  EXPECT_FALSE(topo->flow_cap(topo->gpu_of(RankId(0)), topo->gpu_of(RankId(5))));
  EXPECT_EQ(topo->route(topo->gpu_of(RankId(2)), topo->gpu_of(RankId(2))).size, 0);
}

TEST(Routing, P4dGpu3ToRemoteGpu5IsRailAware) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 4, Placement::Cluster));
  ASSERT_TRUE(topo);
  // GPU 3 sits under PCIe switch 1 with NIC 1; GPU 5 under switch 2 with NIC 2 (OFI-P4D).
  const Route r = topo->route(topo->gpu_of(RankId(3)), topo->gpu_of(RankId(2 * 8 + 5)));
  EXPECT_EQ(hops(*topo, r),
            (std::vector<std::string>{"h0/gpu3>h0/pcie1", "h0/pcie1>h0/nic1", "h0/nic1>tor0",
                                      "tor0>h2/nic2", "h2/nic2>h2/pcie2", "h2/pcie2>h2/gpu5"}));
  // Latency: 4 PCIe hops x 0.5 us + 2 network hops x 2.5 us = 7 us. Bottleneck: the NIC,
  // 12.5 GB/s x 0.85 = 10.625 GB/s (PCIe is 15.75 x 0.85 = 13.39 GB/s).
  EXPECT_NEAR(r.latency.value, 7e-6, 1e-12);
  EXPECT_DOUBLE_EQ(r.bottleneck.value, 12.5e9 * 0.85);
  EXPECT_EQ(topo->nics_of_gpu(3), std::vector<int>{1});
  EXPECT_FALSE(topo->flow_cap(topo->gpu_of(RankId(3)), topo->gpu_of(RankId(21))));  // EFA
}

TEST(Routing, ChannelPicksAmongAGpusRails) {
  auto topo = build_topology(cluster_of(testing::p5_like(), 2, Placement::Cluster));
  ASSERT_TRUE(topo);
  EXPECT_EQ(topo->nics_of_gpu(2), (std::vector<int>{8, 9, 10, 11}));
  for (int c = 0; c < 6; ++c) {
    const Route r = topo->route(topo->gpu_of(RankId(2)), topo->gpu_of(RankId(10)), c);
    const std::string nic = "h0/nic" + std::to_string(8 + c % 4);
    ASSERT_GE(r.size, 3);
    EXPECT_EQ(topo->device(topo->link(r.links[1]).dst).name, nic) << "channel " << c;
  }
}

TEST(Routing, MeshNonNvLinkPairGoesOverPcieAndCpus) {
  auto topo = build_topology(cluster_of(testing::p3_like(), 1, Placement::Cluster));
  ASSERT_TRUE(topo);
  // 0-3 is a double NVLink: one hop.
  const Route direct = topo->route(topo->gpu_of(RankId(0)), topo->gpu_of(RankId(3)));
  ASSERT_EQ(direct.size, 1);
  EXPECT_DOUBLE_EQ(topo->link(direct.links[0]).nominal.value, 50e9);
  // 0-5 has no NVLink (SYS): GPU0 -> CPU0 -> CPU1 -> GPU5, never through another GPU.
  const Route sys = topo->route(topo->gpu_of(RankId(0)), topo->gpu_of(RankId(5)));
  EXPECT_EQ(hops(*topo, sys),
            (std::vector<std::string>{"h0/gpu0>h0/cpu0", "h0/cpu0>h0/cpu1", "h0/cpu1>h0/gpu5"}));
}

TEST(Routing, WithoutGpuDirectRdmaTrafficIsStagedThroughTheCpu) {
  auto topo = build_topology(cluster_of(testing::p3_like(), 2, Placement::Cluster));
  ASSERT_TRUE(topo);
  // GPU 5 is on socket 1, the only NIC on socket 0: GPU5 -> CPU1 -> CPU0 -> NIC0.
  const Route r = topo->route(topo->gpu_of(RankId(5)), topo->gpu_of(RankId(8 + 1)));
  EXPECT_EQ(hops(*topo, r),
            (std::vector<std::string>{"h0/gpu5>h0/cpu1", "h0/cpu1>h0/cpu0", "h0/cpu0>h0/nic0",
                                      "h0/nic0>tor0", "tor0>h1/nic0", "h1/nic0>h1/cpu0",
                                      "h1/cpu0>h1/gpu1"}));
  // p4d-like but without GDR: GPU -> PCIe switch -> CPU -> PCIe switch -> NIC.
  InstanceSpec no_gdr = testing::p4d_like();
  no_gdr.gpudirect_rdma = false;
  auto t2 = build_topology(cluster_of(no_gdr, 2, Placement::Cluster));
  ASSERT_TRUE(t2);
  const Route s = t2->route(t2->gpu_of(RankId(0)), t2->gpu_of(RankId(8)));
  EXPECT_EQ(hops(*t2, s)[1], "h0/pcie0>h0/cpu0");
  EXPECT_EQ(hops(*t2, s)[2], "h0/cpu0>h0/pcie0");
}

TEST(Routing, PcieOnlyHostGoesThroughTheRootComplex) {
  auto topo = build_topology(cluster_of(testing::g5_like(), 1, Placement::Cluster));
  ASSERT_TRUE(topo);
  const Route r = topo->route(topo->gpu_of(RankId(0)), topo->gpu_of(RankId(3)));
  EXPECT_EQ(hops(*topo, r), (std::vector<std::string>{"h0/gpu0>h0/cpu0", "h0/cpu0>h0/gpu3"}));
}

TEST(Routing, RoutesAreContiguousPaths) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 9, Placement::Partition));
  ASSERT_TRUE(topo);
  for (int a = 0; a < topo->num_ranks(); a += 5)
    for (int b = 0; b < topo->num_ranks(); b += 7) {
      const NodeId src = topo->gpu_of(RankId(a)), dst = topo->gpu_of(RankId(b));
      const Route r = topo->route(src, dst, a + b);
      if (a == b) continue;
      ASSERT_GT(r.size, 0);
      NodeId at = src;
      Seconds lat{0};
      double bottleneck = 1e300;
      for (LinkId id : r.view()) {
        ASSERT_EQ(topo->link(id).src, at);
        at = topo->link(id).dst;
        lat += topo->link(id).latency;
        bottleneck = std::min(bottleneck, topo->link(id).bandwidth.value);
      }
      EXPECT_EQ(at, dst);
      // Exact: route() sums the same values in the same order (it reads host 0's copy of a
      // host link, which equals every host's).
      EXPECT_EQ(r.latency.value, lat.value);
      EXPECT_EQ(r.bottleneck.value, bottleneck);
    }
}

}  // namespace
}  // namespace topotune::topo
