// The emulated cluster as topotune models it: the cluster document loads into the spec and
// topology that predict and plan will use, with the shaped rates turned into payload rates.

#include "emulation/cluster_model.h"

#include <gtest/gtest.h>

#include "emulation/link_model.h"
#include "topology/topology.h"

namespace topotune::emu {
namespace {

EmulationSpec racks(int nodes, int racks, double nic_gbit, std::optional<double> uplink_gbit) {
  EmulationSpec s;
  s.nodes = nodes;
  s.ranks_per_node = 2;
  s.racks = racks;
  s.nic_rate = gbit_per_sec(nic_gbit);
  if (uplink_gbit) s.uplink_rate = gbit_per_sec(*uplink_gbit);
  return s;
}

TEST(ClusterModel, OneRackIsOneNonBlockingSegment) {
  const Expected<topo::ClusterSpec> c = emulated_cluster(racks(3, 1, 1.0, std::nullopt));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->hosts, 3);
  EXPECT_EQ(c->placement, topo::Placement::Cluster);
  EXPECT_EQ(c->fabric.hosts_per_rack, 3);
  EXPECT_EQ(c->fabric.oversubscription, 1.0);
  EXPECT_EQ(c->instance.num_gpus, 2);
  EXPECT_EQ(c->instance.num_nics, 1);
  // nic_Gbps carries the payload rate, so the network class's efficiency is 1.
  EXPECT_NEAR(c->instance.nic_bandwidth.value, effective_payload_rate(gbit_per_sec(1)).value, 1e-3);
  EXPECT_EQ(c->params(topo::LinkKind::Network).efficiency, 1.0);
  EXPECT_NEAR(c->params(topo::LinkKind::Network).latency.us(), 12.5, 1e-9);
  EXPECT_TRUE(topo::build_topology(*c));
}

TEST(ClusterModel, UplinksBecomeTheOversubscription) {
  // Racks of 2 hosts x 200 Mbit/s behind a 100 Mbit/s uplink: 400/100 = 4:1.
  const Expected<topo::ClusterSpec> c = emulated_cluster(racks(4, 2, 0.2, 0.1));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->placement, topo::Placement::Partition);
  EXPECT_EQ(c->fabric.hosts_per_rack, 2);
  EXPECT_DOUBLE_EQ(c->fabric.oversubscription, 4.0);
  // An unshaped uplink carries the whole rack: 1:1. A faster one never goes below 1.
  const Expected<topo::ClusterSpec> open = emulated_cluster(racks(4, 2, 0.2, std::nullopt));
  ASSERT_TRUE(open) << open.error().message;
  EXPECT_DOUBLE_EQ(open->fabric.oversubscription, 1.0);
  const Expected<topo::ClusterSpec> fat = emulated_cluster(racks(4, 2, 0.2, 1.0));
  ASSERT_TRUE(fat) << fat.error().message;
  EXPECT_DOUBLE_EQ(fat->fabric.oversubscription, 1.0);
  EXPECT_TRUE(topo::build_topology(*c));
}

}  // namespace
}  // namespace topotune::emu
