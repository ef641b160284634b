// Builder: device and link counts, bandwidths, layout, errors, and build time at scale.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <set>

#include "tests/topology/test_instances.h"
#include "topology/topology.h"

namespace topotune::topo {
namespace {

using testing::cluster_of;

int count_kind(const Topology& t, DeviceKind k) {
  int n = 0;
  for (std::size_t i = 0; i < t.num_devices(); ++i)
    n += t.device(NodeId(static_cast<std::int32_t>(i))).kind == k;
  return n;
}

TEST(Builder, P4dFourHostsCounts) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 4, Placement::Cluster));
  ASSERT_TRUE(topo) << topo.error().message;
  EXPECT_EQ(topo->num_ranks(), 32);
  EXPECT_EQ(count_kind(*topo, DeviceKind::Gpu), 32);
  EXPECT_EQ(count_kind(*topo, DeviceKind::Nic), 16);
  EXPECT_EQ(count_kind(*topo, DeviceKind::NvSwitch), 4);
  EXPECT_EQ(count_kind(*topo, DeviceKind::PcieSwitch), 16);
  EXPECT_EQ(count_kind(*topo, DeviceKind::Cpu), 8);
  EXPECT_EQ(count_kind(*topo, DeviceKind::TorSwitch), 1);
  EXPECT_EQ(count_kind(*topo, DeviceKind::Spine), 0);
  // Per GPU: 12 NVLinks x 25 GB/s = 300 GB/s per direction into the NVSwitch (instances.md 1).
  const NodeId g0 = topo->gpu_of(RankId(0));
  int nvlinks = 0;
  for (LinkId l : topo->out_links(g0)) {
    if (topo->link(l).kind != LinkKind::NvLink) continue;
    ++nvlinks;
    EXPECT_DOUBLE_EQ(topo->link(l).nominal.value, 300e9);
    EXPECT_EQ(topo->device(topo->link(l).dst).kind, DeviceKind::NvSwitch);
  }
  EXPECT_EQ(nvlinks, 1);
  // 4 x 100 Gbps = 50 GB/s per host.
  EXPECT_DOUBLE_EQ(topo->host_nic_bandwidth().value, 50e9);
}

// Every PCIe link's rate, or -1 when they differ.
double pcie_rate(const Topology& t) {
  double rate = 0;
  for (std::size_t i = 0; i < t.num_links(); ++i) {
    const Link& l = t.link(LinkId(static_cast<std::int32_t>(i)));
    if (l.kind != LinkKind::Pcie) continue;
    if (rate != 0 && rate != l.nominal.value) return -1;
    rate = l.nominal.value;
  }
  return rate;
}

TEST(Builder, UnknownPcieCarriesTheNicLineRate) {
  InstanceSpec s = testing::p4d_like();
  s.pcie_bandwidth.reset();  // unknown: Gen3 x16 (15.75 GB/s) unless the NIC is faster
  auto slow_nic = build_topology(cluster_of(s, 2, Placement::Cluster));
  ASSERT_TRUE(slow_nic);
  EXPECT_DOUBLE_EQ(pcie_rate(*slow_nic), 15.75e9);  // 100 Gb/s = 12.5 GB/s < Gen3 x16
  s.nic_bandwidth = gbit_per_sec(400);
  auto fast_nic = build_topology(cluster_of(s, 2, Placement::Cluster));
  ASSERT_TRUE(fast_nic);
  EXPECT_DOUBLE_EQ(pcie_rate(*fast_nic), 50e9);  // 400 Gb/s: the link carries the NIC's rate
  s.pcie_bandwidth = gbyte_per_sec(31.5);        // a stated figure wins
  auto stated = build_topology(cluster_of(s, 2, Placement::Cluster));
  ASSERT_TRUE(stated);
  EXPECT_DOUBLE_EQ(pcie_rate(*stated), 31.5e9);
}

TEST(Builder, EveryLinkIsInItsSourceOutLinksOnce) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 3, Placement::Partition));
  ASSERT_TRUE(topo);
  std::set<std::int32_t> seen;
  for (std::size_t v = 0; v < topo->num_devices(); ++v)
    for (LinkId l : topo->out_links(NodeId(static_cast<std::int32_t>(v)))) {
      EXPECT_EQ(topo->link(l).src.value, static_cast<std::int32_t>(v));
      EXPECT_TRUE(seen.insert(l.value).second);
    }
  EXPECT_EQ(seen.size(), topo->num_links());
}

TEST(Builder, DeviceNamesAndHosts) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 2, Placement::Cluster));
  ASSERT_TRUE(topo);
  const Device& d = topo->device(topo->gpu_of(RankId(13)));  // host 1, GPU 5
  EXPECT_EQ(d.name, "h1/gpu5");
  EXPECT_EQ(d.host, 1);
  EXPECT_EQ(d.index, 5);
  EXPECT_EQ(topo->device(topo->cpu_of_host(1)).name, "h1/cpu0");
}

TEST(Builder, NvLinkMeshHasThePairMap) {
  const InstanceSpec p3 = testing::p3_like();
  auto topo = build_topology(cluster_of(p3, 1, Placement::Cluster));
  ASSERT_TRUE(topo);
  int nvlink_links = 0;
  for (std::size_t i = 0; i < topo->num_links(); ++i) {
    const Link& l = topo->link(LinkId(static_cast<std::int32_t>(i)));
    if (l.kind != LinkKind::NvLink) continue;
    ++nvlink_links;
    const int a = topo->device(l.src).index, b = topo->device(l.dst).index;
    int expected_links = 0;
    for (const NvLinkPair& p : p3.nvlink_pairs)
      if ((p.a == a && p.b == b) || (p.a == b && p.b == a)) expected_links = p.links;
    EXPECT_DOUBLE_EQ(l.nominal.value, expected_links * 25e9) << a << "-" << b;
  }
  EXPECT_EQ(nvlink_links, 2 * 16);  // 16 pairs, two directions each
}

TEST(Builder, RejectsBadInput) {
  EXPECT_FALSE(build_topology(cluster_of(testing::p4d_like(), 0, Placement::Cluster)));
  auto absurd = build_topology(cluster_of(testing::p4d_like(), kMaxHosts + 1, Placement::Cluster));
  ASSERT_FALSE(absurd);
  EXPECT_EQ(absurd.error().code, Errc::InvalidArgument);
  InstanceSpec bad = testing::p4d_like();
  bad.pcie_switches[1].gpus.push_back(9);  // GPU 9 of an 8-GPU machine
  auto e = build_topology(cluster_of(bad, 1, Placement::Cluster));
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("host.pcie_switches[1].gpus"), std::string::npos)
      << e.error().message;
  bad = testing::p4d_like();
  bad.pcie_switches[0].socket = 2;
  EXPECT_FALSE(build_topology(cluster_of(bad, 1, Placement::Cluster)));
  bad = testing::p4d_like();
  bad.nic_bandwidth = BytesPerSec(-1);
  EXPECT_FALSE(build_topology(cluster_of(bad, 1, Placement::Cluster)));
  bad = testing::p3_like();
  bad.nvlink_pairs.push_back({0, 5, 1});  // GPU 0 would have 7 links, more than 6
  EXPECT_FALSE(build_topology(cluster_of(bad, 1, Placement::Cluster)));
}

TEST(Builder, UniformTopologyLatencyAndBottleneck) {
  auto topo = make_uniform_topology(3, 4, gbyte_per_sec(100), gbyte_per_sec(10), microseconds(2),
                                    microseconds(10));
  ASSERT_TRUE(topo) << topo.error().message;
  EXPECT_EQ(topo->num_ranks(), 12);
  const Route intra = topo->route(topo->gpu_of(RankId(0)), topo->gpu_of(RankId(3)));
  EXPECT_DOUBLE_EQ(intra.latency.value, 2e-6);
  EXPECT_DOUBLE_EQ(intra.bottleneck.value, 100e9);
  const Route inter = topo->route(topo->gpu_of(RankId(1)), topo->gpu_of(RankId(9)));
  EXPECT_DOUBLE_EQ(inter.latency.value, 10e-6);
  EXPECT_DOUBLE_EQ(inter.bottleneck.value, 10e9);
  EXPECT_FALSE(
      make_uniform_topology(2, 0, gbyte_per_sec(1), gbyte_per_sec(1), Seconds(0), Seconds(0)));
}

TEST(Builder, ThousandHostsBuildFast) {
  const auto start = std::chrono::steady_clock::now();
  auto topo = build_topology(cluster_of(testing::p4d_like(), 1024, Placement::Cluster));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(topo);
  EXPECT_EQ(topo->num_ranks(), 8192);
  std::printf("1024 x p4d build: %.3f s, %zu devices, %zu links\n", s, topo->num_devices(),
              topo->num_links());
  EXPECT_LT(s, 5.0);  // generous for sanitizer builds; a release build takes well under 1 s
  const Route r = topo->route(topo->gpu_of(RankId(3)), topo->gpu_of(RankId(8191)));
  EXPECT_EQ(r.size, 6);
}

TEST(Builder, CopyIsIndependentAndEqual) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 2, Placement::Cluster));
  ASSERT_TRUE(topo);
  Topology copy = *topo;
  EXPECT_EQ(copy.num_links(), topo->num_links());
  const Route a = topo->route(topo->gpu_of(RankId(0)), topo->gpu_of(RankId(15)));
  const Route b = copy.route(copy.gpu_of(RankId(0)), copy.gpu_of(RankId(15)));
  ASSERT_EQ(a.size, b.size);
  for (int i = 0; i < a.size; ++i) EXPECT_EQ(a.links[i], b.links[i]);
}

}  // namespace
}  // namespace topotune::topo
