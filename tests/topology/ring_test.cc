// Intra-host ring discovery and ring_order.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/topology/test_instances.h"
#include "topology/topology.h"

namespace topotune::topo {
namespace {

using testing::cluster_of;

bool is_permutation_of_n(const std::vector<int>& ring, int n) {
  std::vector<int> s = ring;
  std::sort(s.begin(), s.end());
  for (int i = 0; i < n; ++i)
    if (static_cast<int>(s.size()) != n || s[i] != i) return false;
  return true;
}

TEST(Rings, NvLinkMeshRingsUseNvLinkOnly) {
  const InstanceSpec p3 = testing::p3_like();
  auto topo = build_topology(cluster_of(p3, 1, Placement::Cluster));
  ASSERT_TRUE(topo);
  ASSERT_GE(topo->num_intra_host_rings(), 2);
  std::set<std::vector<int>> distinct;
  for (int c = 0; c < topo->num_intra_host_rings(); ++c) {
    const std::vector<int>& ring = topo->intra_host_ring(c);
    ASSERT_TRUE(is_permutation_of_n(ring, 8));
    distinct.insert(ring);
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const int a = ring[i], b = ring[(i + 1) % ring.size()];
      // The route between ring neighbours is a single NVLink.
      const Route r = topo->route(topo->gpu_of(RankId(a)), topo->gpu_of(RankId(b)));
      ASSERT_EQ(r.size, 1) << a << "->" << b;
      EXPECT_EQ(topo->link(r.links[0]).kind, LinkKind::NvLink);
    }
  }
  EXPECT_EQ(static_cast<int>(distinct.size()), topo->num_intra_host_rings());
  // The first ring is the heaviest: all 8 of its edges double NVLinks would be 16 links; the
  // cube-mesh's 8 double pairs (0-3,3-2,2-1,1-5,5-6,6-7,7-4,4-0) form exactly such a cycle.
  const std::vector<int>& first = topo->intra_host_ring(0);
  for (std::size_t i = 0; i < first.size(); ++i) {
    const Route r = topo->route(topo->gpu_of(RankId(first[i])),
                                topo->gpu_of(RankId(first[(i + 1) % first.size()])));
    EXPECT_DOUBLE_EQ(topo->link(r.links[0]).nominal.value, 50e9);
  }
}

TEST(Rings, NvSwitchIsIdentityWithSwitchMatesAdjacent) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 2, Placement::Cluster));
  ASSERT_TRUE(topo);
  EXPECT_EQ(topo->intra_host_ring(0), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  InstanceSpec shuffled = testing::p4d_like();
  shuffled.pcie_switches = {{0, {0, 4}, {0}}, {0, {1, 5}, {1}}, {1, {2, 6}, {2}}, {1, {3, 7}, {3}}};
  auto t2 = build_topology(cluster_of(shuffled, 1, Placement::Cluster));
  ASSERT_TRUE(t2);
  EXPECT_EQ(t2->intra_host_ring(0), (std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7}));
}

TEST(Rings, PcieBySocketThenSwitch) {
  InstanceSpec s = testing::g5_like();
  s.num_gpus = 4;
  s.cpu_sockets = 2;
  s.gpu_socket = {1, 0, 1, 0};
  auto topo = build_topology(cluster_of(s, 1, Placement::Cluster));
  ASSERT_TRUE(topo) << topo.error().message;
  EXPECT_EQ(topo->intra_host_ring(0), (std::vector<int>{1, 3, 0, 2}));
}

TEST(Rings, RingOrderKeepsHostsContiguous) {
  auto topo = build_topology(cluster_of(testing::p3_like(), 3, Placement::Cluster));
  ASSERT_TRUE(topo);
  for (int c = 0; c < 3; ++c) {
    const std::vector<RankId> order = topo->ring_order(c);
    ASSERT_EQ(order.size(), 24u);
    for (int i = 0; i < 24; ++i) {
      EXPECT_EQ(topo->host_of(order[i]), i / 8);
      EXPECT_EQ(topo->local_index(order[i]), topo->intra_host_ring(c)[i % 8]);
    }
  }
}

}  // namespace
}  // namespace topotune::topo
