// Placements: racks, spine and oversubscribed uplinks, TCP per-flow caps, bisection.

#include <gtest/gtest.h>

#include "tests/topology/test_instances.h"
#include "topology/topology.h"

namespace topotune::topo {
namespace {

using testing::cluster_of;

int count_links(const Topology& t, LinkKind k) {
  int n = 0;
  for (std::size_t i = 0; i < t.num_links(); ++i)
    n += t.link(LinkId(static_cast<std::int32_t>(i))).kind == k;
  return n;
}

TEST(Placement, NamesBothWays) {
  for (Placement p : {Placement::Cluster, Placement::Partition, Placement::Spread}) {
    EXPECT_EQ(*parse_placement(placement_name(p)), p);
  }
  EXPECT_EQ(parse_placement("rack").error().message,
            "unknown placement 'rack' (expected cluster, partition or spread)");
}

TEST(Placement, ClusterIsOneSegmentWithoutSpine) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 8, Placement::Cluster));
  ASSERT_TRUE(topo);
  EXPECT_EQ(topo->num_racks(), 1);
  EXPECT_EQ(count_links(*topo, LinkKind::Uplink), 0);
  // Non-blocking: half the hosts' NICs, 4 x 50 GB/s.
  EXPECT_DOUBLE_EQ(topo->bisection_bandwidth().value, 200e9);
}

TEST(Placement, PartitionUsesSevenRacksAndAnOversubscribedSpine) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 10, Placement::Partition));
  ASSERT_TRUE(topo);
  EXPECT_EQ(topo->num_racks(), 7);
  EXPECT_EQ(count_links(*topo, LinkKind::Uplink), 14);
  // Balanced contiguous blocks: racks hold 2,1,2,1,2,1,1 hosts (h*7/10).
  EXPECT_EQ(topo->rack_of_host(0), 0);
  EXPECT_EQ(topo->rack_of_host(1), 0);
  EXPECT_EQ(topo->rack_of_host(9), 6);
  // Uplink per rack: 2 hosts x 50 GB/s / 4 = 25 GB/s; bisection min(5 x 50, 3 x 25) = 75 GB/s.
  EXPECT_DOUBLE_EQ(topo->bisection_bandwidth().value, 75e9);
  // Host 0 (rack 0) to host 9 (rack 6) crosses the spine: two uplink hops.
  const Route r = topo->route(topo->gpu_of(RankId(0)), topo->gpu_of(RankId(72)));
  int uplinks = 0;
  for (LinkId id : r.view()) uplinks += topo->link(id).kind == LinkKind::Uplink;
  EXPECT_EQ(uplinks, 2);
  // Same rack: no spine.
  const Route same = topo->route(topo->gpu_of(RankId(0)), topo->gpu_of(RankId(8)));
  for (LinkId id : same.view()) EXPECT_NE(topo->link(id).kind, LinkKind::Uplink);
  // The spread/partition latency defaults exceed the cluster ones.
  auto cl = build_topology(cluster_of(testing::p4d_like(), 10, Placement::Cluster));
  ASSERT_TRUE(cl);
  EXPECT_GT(r.latency, cl->route(cl->gpu_of(RankId(0)), cl->gpu_of(RankId(72))).latency);
}

TEST(Placement, SpreadPutsEachHostInItsOwnRack) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 4, Placement::Spread));
  ASSERT_TRUE(topo);
  EXPECT_EQ(topo->num_racks(), 4);
  for (int h = 0; h < 4; ++h) EXPECT_EQ(topo->rack_of_host(h), h);
  // Uplink 50 / 4 = 12.5 GB/s per rack; bisection min(2 x 50, 2 x 12.5) = 25 GB/s.
  EXPECT_DOUBLE_EQ(topo->bisection_bandwidth().value, 25e9);
}

TEST(Placement, HostsPerRackOverride) {
  ClusterSpec spec = cluster_of(testing::p4d_like(), 5, Placement::Cluster);
  spec.fabric.hosts_per_rack = 2;
  auto topo = build_topology(spec);
  ASSERT_TRUE(topo);
  EXPECT_EQ(topo->num_racks(), 3);
  EXPECT_EQ(topo->rack_of_host(4), 2);
}

TEST(Placement, TcpFlowCapsOnlyForTcpAcrossHosts) {
  auto cl = build_topology(cluster_of(testing::p3_like(), 2, Placement::Cluster));
  ASSERT_TRUE(cl);
  const NodeId a = cl->gpu_of(RankId(0)), b = cl->gpu_of(RankId(8)), c = cl->gpu_of(RankId(1));
  ASSERT_TRUE(cl->flow_cap(a, b));
  EXPECT_DOUBLE_EQ(cl->flow_cap(a, b)->value, 10e9 / 8);  // 10 Gbps in a cluster group
  EXPECT_FALSE(cl->flow_cap(a, c));                       // inside a host
  auto sp = build_topology(cluster_of(testing::p3_like(), 2, Placement::Spread));
  ASSERT_TRUE(sp);
  EXPECT_DOUBLE_EQ(sp->flow_cap(a, b)->value, 5e9 / 8);  // 5 Gbps outside
  auto efa = build_topology(cluster_of(testing::p4d_like(), 2, Placement::Spread));
  ASSERT_TRUE(efa);
  EXPECT_FALSE(efa->flow_cap(efa->gpu_of(RankId(0)), efa->gpu_of(RankId(8))));
}

TEST(Placement, OneHostHasNoBisection) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 1, Placement::Spread));
  ASSERT_TRUE(topo);
  EXPECT_DOUBLE_EQ(topo->bisection_bandwidth().value, 0.0);
}

TEST(ReduceBandwidth, DefaultsAndMeasured) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 1, Placement::Cluster));
  ASSERT_TRUE(topo);
  // Unmeasured: memory bandwidth / 3 = 1555 / 3 GB/s.
  EXPECT_NEAR(topo->reduce_bandwidth(topo->gpu_of(RankId(0))).value, 1555e9 / 3, 1.0);
  EXPECT_DOUBLE_EQ(topo->reduce_bandwidth(topo->cpu_of_host(0)).value, 10e9);  // default
  InstanceSpec measured = testing::p4d_like();
  measured.gpu.reduce_bandwidth = gbyte_per_sec(400);
  auto t2 = build_topology(cluster_of(measured, 1, Placement::Cluster));
  ASSERT_TRUE(t2);
  EXPECT_DOUBLE_EQ(t2->reduce_bandwidth(t2->gpu_of(RankId(0))).value, 400e9);
}

}  // namespace
}  // namespace topotune::topo

namespace topotune::topo {
namespace {

int uplinks_on(const Topology& t, const Route& r) {
  int n = 0;
  for (LinkId id : r.view()) n += t.link(id).kind == LinkKind::Uplink;
  return n;
}

// Rail-optimised racks (NVIDIA DGX SuperPOD: NIC n of every node of a scalable unit on leaf n,
// traffic between nodes or rails through the spine): same-rail traffic inside a rack is one
// hop, another rail or another rack crosses the spine.
TEST(Placement, RailOptimisedLeavesAndSpine) {
  ClusterSpec spec = testing::cluster_of(testing::p4d_like(), 4, Placement::Cluster);
  spec.fabric.hosts_per_rack = 2;
  spec.fabric.rails_per_leaf = 1;
  auto topo = build_topology(spec);
  ASSERT_TRUE(topo) << topo.error().message;
  EXPECT_EQ(topo->num_racks(), 2);
  EXPECT_EQ(topo->leaves_per_rack(), 4);  // p4d: 4 NICs, one leaf each
  int uplinks = 0;
  for (std::size_t i = 0; i < topo->num_links(); ++i)
    uplinks += topo->link(LinkId(static_cast<std::int32_t>(i))).kind == LinkKind::Uplink;
  EXPECT_EQ(uplinks, 16);  // 8 leaves, up and down
  // Leaf uplink: 1 NIC x 2 hosts x 12.5 GB/s / 1 = 25 GB/s; bisection min(2 nodes x 50,
  // 4 leaves x 25) = 100 GB/s.
  EXPECT_DOUBLE_EQ(topo->bisection_bandwidth().value, 100e9);
  auto r = [&](int a, int b) {
    return topo->route(topo->gpu_of(RankId(a)), topo->gpu_of(RankId(b)));
  };
  EXPECT_EQ(uplinks_on(*topo, r(0, 8)), 0);   // GPU 0 of hosts 0 and 1: same rail, same rack
  EXPECT_EQ(uplinks_on(*topo, r(0, 16)), 2);  // host 2 is in the other rack
  EXPECT_EQ(uplinks_on(*topo, r(0, 10)), 2);  // GPU 2 uses another NIC: another rail
  EXPECT_EQ(topo->host_period(), 2);
}

TEST(Placement, LargeClusterPlacementDefaultsToRailOptimisedScalableUnits) {
  auto small = make_cluster_spec("p5.48xlarge", 32);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->fabric.rails_per_leaf, 0);
  EXPECT_EQ(small->fabric.hosts_per_rack, 0);
  auto large = make_cluster_spec("p5.48xlarge", 1024);
  ASSERT_TRUE(large);
  EXPECT_EQ(large->fabric.hosts_per_rack, 32);
  EXPECT_EQ(large->fabric.rails_per_leaf, 4);  // 32 NICs / 8 GPUs: a leaf per GPU's rails
  EXPECT_EQ(large->fabric.oversubscription, 1.0);
  auto topo = build_topology(*large);
  ASSERT_TRUE(topo);
  EXPECT_EQ(topo->num_racks(), 32);
  EXPECT_EQ(topo->leaves_per_rack(), 8);
  // 32 units is past the two-tier designs: pods of 4 units (128 nodes) under a super-spine,
  // and the translation period is a pod (superspine_test.cc).
  EXPECT_EQ(topo->host_period(), 128);
  auto spread = make_cluster_spec("p5.48xlarge", 1024, Placement::Spread);
  ASSERT_TRUE(spread);
  EXPECT_EQ(spread->fabric.rails_per_leaf, 0);
}

TEST(Placement, ClusterFileSetsRailsPerLeaf) {
  const std::string doc = R"({"schema": "topotune.cluster/1", "instance": "p4d.24xlarge",
      "nodes": 4, "fabric": {"hosts_per_rack": 2, "rails_per_leaf": 2}})";
  auto spec = parse_cluster_json(doc, "test");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->fabric.rails_per_leaf, 2);
  auto topo = build_topology(*spec);
  ASSERT_TRUE(topo);
  EXPECT_EQ(topo->leaves_per_rack(), 2);
  const std::string bad = R"({"schema": "topotune.cluster/1", "instance": "p4d.24xlarge",
      "nodes": 4, "fabric": {"rails_per_leaf": -1}})";
  auto refused = parse_cluster_json(bad, "test");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("rails_per_leaf"), std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace topotune::topo
