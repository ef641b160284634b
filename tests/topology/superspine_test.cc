// The third fabric tier: pods of racks under their own spine, a super-spine above the pods
// (FabricParams::racks_per_pod), with its own oversubscription and latency per hop; the
// cluster file's keys; the defaults of large cluster placements (model_defaults.h).

#include <gtest/gtest.h>

#include <string>

#include "tests/topology/test_instances.h"
#include "topology/cluster_spec.h"
#include "topology/model_defaults.h"
#include "topology/topology.h"

namespace topotune::topo {
namespace {

int count_kind(const Topology& t, DeviceKind k) {
  int n = 0;
  for (std::size_t i = 0; i < t.num_devices(); ++i)
    n += t.device(NodeId(static_cast<std::int32_t>(i))).kind == k;
  return n;
}

// The switches a route crosses, in order (the destination device of each link that ends on a
// switch), e.g. "leaf0.0 spine0 superspine spine1 leaf2.0".
std::string switches_on(const Topology& t, const Route& r) {
  std::string s;
  for (LinkId id : r.view()) {
    const Device& d = t.device(t.link(id).dst);
    if (d.host >= 0) continue;
    s += (s.empty() ? "" : " ") + d.name;
  }
  return s;
}

// 8 hosts of a p4d-like machine (4 NICs, 8 GPUs), racks of 2, a leaf per NIC rail, pods of 2
// racks: 2 pods, so hosts 0-3 share spine0 and hosts 4-7 spine1.
ClusterSpec three_tiers() {
  ClusterSpec spec = testing::cluster_of(testing::p4d_like(), 8, Placement::Cluster);
  spec.fabric.hosts_per_rack = 2;
  spec.fabric.rails_per_leaf = 1;
  spec.fabric.oversubscription = 2;
  spec.fabric.racks_per_pod = 2;
  spec.fabric.pod_oversubscription = 4;
  spec.fabric.superspine_latency = microseconds(7);
  return spec;
}

TEST(SuperSpine, PodsShareASpineAndMeetAtTheSuperSpine) {
  auto t = build_topology(three_tiers());
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->num_racks(), 4);
  EXPECT_EQ(t->num_pods(), 2);
  EXPECT_EQ(t->racks_per_pod(), 2);
  EXPECT_EQ(count_kind(*t, DeviceKind::Spine), 2);
  EXPECT_EQ(count_kind(*t, DeviceKind::SuperSpine), 1);
  auto route = [&](int a, int b) { return t->route(t->gpu_of(RankId(a)), t->gpu_of(RankId(b))); };
  // GPU 0 (rail 0) of host 0 to GPU 0 of host 1, 2, 4: same rack, same pod, other pod.
  EXPECT_EQ(switches_on(*t, route(0, 8)), "leaf0.0");
  EXPECT_EQ(switches_on(*t, route(0, 16)), "leaf0.0 spine0 leaf1.0");
  EXPECT_EQ(switches_on(*t, route(0, 32)), "leaf0.0 spine0 superspine spine1 leaf2.0");
  // The super-spine tier's hops carry its own latency: 7 us each, against the class's 2.5.
  const Route across = route(0, 32), within = route(0, 16);
  EXPECT_NEAR(across.latency.value - within.latency.value, 2 * 7e-6, 1e-12);
  // Capacities: a leaf uplink carries its 2 hosts' rail at 2:1 (1 x 2 x 12.5 / 2 = 12.5 GB/s
  // nominal); a pod uplink its 4 leaves x 2 racks of those at 4:1 (8 x 12.5 / 4 = 25 GB/s).
  int pod_links = 0;
  for (std::size_t i = 0; i < t->num_links(); ++i) {
    const Link& l = t->link(LinkId(static_cast<std::int32_t>(i)));
    const bool core = t->device(l.src).kind == DeviceKind::SuperSpine ||
                      t->device(l.dst).kind == DeviceKind::SuperSpine;
    if (!core) continue;
    ++pod_links;
    EXPECT_EQ(l.kind, LinkKind::Uplink);
    EXPECT_DOUBLE_EQ(l.nominal.value, 25e9);
    EXPECT_DOUBLE_EQ(l.latency.value, 7e-6);
  }
  EXPECT_EQ(pod_links, 4);  // two pods, up and down
  // Bisection: min(4 hosts x 50 GB/s, 2 racks x 4 leaves x 12.5, 1 pod x 25) = 25 GB/s.
  EXPECT_DOUBLE_EQ(t->bisection_bandwidth().value, 25e9);
  // The translation symmetry is one pod: a shift by one rack would carry rack 1 into pod 1.
  EXPECT_EQ(t->host_period(), 4);
}

TEST(SuperSpine, OnePodIsTwoTiersAndUnevenPodsHaveNoTranslation) {
  ClusterSpec spec = three_tiers();
  spec.fabric.racks_per_pod = 4;  // every rack in one pod: no super-spine
  auto one = build_topology(spec);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->num_pods(), 1);
  EXPECT_EQ(count_kind(*one, DeviceKind::SuperSpine), 0);
  EXPECT_EQ(one->host_period(), 2);
  spec.fabric.racks_per_pod = 3;  // pods of 3 and 1 racks
  auto uneven = build_topology(spec);
  ASSERT_TRUE(uneven);
  EXPECT_EQ(uneven->num_pods(), 2);
  EXPECT_EQ(uneven->host_period(), 0);
}

// Cluster placement: two tiers up to 8 scalable units of 32 nodes, then pods of 4 units under a
// super-spine, non-blocking (the DGX SuperPOD B200 table in model_defaults.h).
TEST(SuperSpine, LargeClusterPlacementDefaults) {
  auto two = make_cluster_spec("p5.48xlarge", kScalableUnitHosts * kTwoTierMaxScalableUnits);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->fabric.racks_per_pod, 0);
  auto t2 = build_topology(*two);
  ASSERT_TRUE(t2);
  EXPECT_EQ(t2->num_pods(), 1);
  auto three = make_cluster_spec("p5.48xlarge", 1024);
  ASSERT_TRUE(three);
  EXPECT_EQ(three->fabric.racks_per_pod, kScalableUnitsPerPod);
  EXPECT_EQ(three->fabric.pod_oversubscription, kPodOversubscription);
  auto t3 = build_topology(*three);
  ASSERT_TRUE(t3);
  EXPECT_EQ(t3->num_racks(), 32);
  EXPECT_EQ(t3->num_pods(), 8);
  EXPECT_EQ(t3->host_period(), 128);
  // Non-blocking at every tier: the NICs bound the bisection (512 hosts x 400 GB/s).
  EXPECT_DOUBLE_EQ(t3->bisection_bandwidth().value, 512 * 400e9);
  auto partition = make_cluster_spec("p5.48xlarge", 1024, Placement::Partition);
  ASSERT_TRUE(partition);
  EXPECT_EQ(partition->fabric.racks_per_pod, 0);
}

TEST(SuperSpine, ClusterFileKeys) {
  const std::string head = R"({"schema": "topotune.cluster/1", "instance": "p4d.24xlarge",
      "nodes": 16, "fabric": {"hosts_per_rack": 2, "racks_per_pod": 2, )";
  auto spec =
      parse_cluster_json(head + R"("pod_oversubscription": 3, "superspine_latency_us": 9}})", "c");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->fabric.racks_per_pod, 2);
  EXPECT_DOUBLE_EQ(spec->fabric.pod_oversubscription, 3.0);
  EXPECT_DOUBLE_EQ(spec->fabric.superspine_latency->value, 9e-6);
  auto t = build_topology(*spec);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->num_pods(), 4);
  auto bad = parse_cluster_json(head + R"("pod_oversubscription": 0.5}})", "c");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("fabric.pod_oversubscription: must be in 1..1000"),
            std::string::npos)
      << bad.error().message;
  auto negative = parse_cluster_json(head + R"("superspine_latency_us": -1}})", "c");
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.error().message.find("superspine_latency_us"), std::string::npos);
}

}  // namespace
}  // namespace topotune::topo
