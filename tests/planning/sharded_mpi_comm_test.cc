// The sharded planner's collectives without NCCL (--backend mpi): topotune's rings on the flow
// simulator, per group, against hand-derived times on uncongested clusters and the NIC sharing
// of HSDP's concurrent replica allreduces.

#include "planning/sharded_mpi_comm.h"

#include <gtest/gtest.h>

#include "topology/cluster_spec.h"

namespace topotune::tune {
namespace {

using sched::Collective;
using sched::DataType;

constexpr double kNic = 25e6;     // bytes/s per GPU's NIC
constexpr double kIntra = 400e6;  // bytes/s per GPU inside a host

// No wire latency: only the bandwidth terms and ShapeDefaults' software costs remain.
std::shared_ptr<const ShardedMpiComm> uniform(int hosts, int gpus) {
  return ShardedMpiComm::on(*topo::make_uniform_topology(
      hosts, gpus, BytesPerSec(kIntra), BytesPerSec(kNic), Seconds(0), Seconds(0)));
}

double t(const ShardedMpiComm& m, Collective c, ShardGroup g, double bytes,
         DataType d = DataType::F32) {
  return m.time(c, g, Bytes(static_cast<std::int64_t>(bytes)), d)->value;
}

TEST(ShardedMpiComm, WorldRingsHandDerived) {
  // 4 hosts x 1 GPU, S = 40 MB. Ring allgather: every rank sends 3/4 S through its NIC,
  // one block per step: 3 x 10 MB / 25 MB/s = 1.2 s, plus 3 network steps of 8 us and one
  // 10 us launch (ShapeDefaults), plus the all-gather's start: half of one of gloo's segments
  // (half a block: 0.2 s), 0.1 s. The reduce-scatter moves the same bytes; the allreduce twice.
  const auto m = uniform(4, 1);
  const ShapeDefaults d;
  const double sw = d.op_latency.value + 3 * d.net_step_overhead.value;
  EXPECT_NEAR(t(*m, Collective::Allgather, ShardGroup::World, 40e6, DataType::BF16), 1.2 + 0.1 + sw,
              1e-6);
  // The reduce-scatter moves the same bytes and sums what it receives (the simulator's
  // reduction time: under 0.1 % here), without the all-gather's start; the allreduce is both
  // halves in one collective (one launch).
  const double ag = t(*m, Collective::Allgather, ShardGroup::World, 40e6, DataType::BF16) - 0.1;
  const double rs = t(*m, Collective::ReduceScatter, ShardGroup::World, 40e6);
  EXPECT_GT(rs, ag);
  EXPECT_LT(rs, ag * 1.001);
  EXPECT_NEAR(t(*m, Collective::Allreduce, ShardGroup::World, 40e6), ag + rs - d.op_latency.value,
              1e-9);
  // One GPU per host: HSDP's shard group has one rank and moves nothing.
  EXPECT_EQ(t(*m, Collective::Allgather, ShardGroup::Node, 40e6), 0.0);
}

TEST(ShardedMpiComm, NodeGroupStaysInsideTheHost) {
  // 2 hosts x 2 GPUs: the node group's allgather is host 0's two ranks over the intra-host
  // fabric, 1/2 S / kIntra, with one intra-host step and a quarter of it to start (half of
  // one of its two segments): as a one-host cluster's world ring.
  const auto m = uniform(2, 2);
  const ShapeDefaults d;
  const double node = t(*m, Collective::Allgather, ShardGroup::Node, 40e6, DataType::BF16);
  EXPECT_NEAR(node, 1.25 * 20e6 / kIntra + d.op_latency.value + d.intra_step_overhead.value, 1e-6);
  EXPECT_NEAR(node,
              t(*uniform(1, 2), Collective::Allgather, ShardGroup::World, 40e6, DataType::BF16),
              1e-9);
}

TEST(ShardedMpiComm, ReplicaAllreducesRunTogether) {
  // Uniform cluster, one NIC per GPU: the 2 rails' allreduces share nothing, so 2 x 2 takes
  // what one rail of 2 x 1 takes: 2 x 1/2 S / kNic (and the reduction, under 0.1 %).
  const ShapeDefaults d;
  const double rails = t(*uniform(2, 2), Collective::Allreduce, ShardGroup::Replica, 40e6);
  EXPECT_NEAR(rails, 1.6 + d.op_latency.value + 2 * d.net_step_overhead.value, 1.6e-3);
  EXPECT_NEAR(rails, t(*uniform(2, 1), Collective::Allreduce, ShardGroup::World, 40e6), 1e-9);
}

TEST(ShardedMpiComm, ReplicaAllreducesShareTheHostsNic) {
  // g4dn.12xlarge: 4 GPUs behind one NIC. Each of the 4 rails' 2-host ring allreduces sends S
  // per rank (S/2 reduce-scatter, S/2 allgather) through the NIC they share: 4 S per NIC
  // and direction, against 1 S for one rail alone. The replica time is 4x one rail's.
  const auto m = *ShardedMpiComm::create(*topo::make_cluster_spec("g4dn.12xlarge", 2));
  // The whole cluster's ring allreduce (8 ranks, hosts contiguous) crosses each NIC once per
  // direction with 2 x 7/8 S: the replica groups move 4 / 1.75 = 2.29x its NIC bytes. One
  // rail simulated alone would be 0.57x.
  const double four = t(*m, Collective::Allreduce, ShardGroup::Replica, 400e6);
  const double world = t(*m, Collective::Allreduce, ShardGroup::World, 400e6);
  EXPECT_GT(four / world, 2.0);
  EXPECT_LT(four / world, 2.4);
}

}  // namespace
}  // namespace topotune::tune
