#pragma once
// ShardedMpiComm: the sharded planner's collectives where no NCCL runs them (`plan --framework
// fsdp --backend mpi`: topotune's runtime, or gloo on an emulated cluster). Each group's
// collective is topotune's ring schedule, run by the flow simulator on the whole cluster's
// topology, so that it crosses the links the job's collective crosses and shares them as the
// job's concurrent groups do:
//   - world (FSDP, ZeRO, DDP): the ring reduce-scatter / allgather / allreduce over every rank
//     in the topology's ring order (ring_half.h, ring_allreduce.h);
//   - node (HSDP's shard group): the same rings over host 0's ranks alone (every host's group
//     is alike and they share no link, so host 0's time is each one's);
//   - replica (HSDP): one ring allreduce over the hosts per local rank, all G of them in one
//     simulation (every rank allreduces its shard at once: they share each host's NICs).
// gloo's collectives are these rings: its allgather passes blocks to the right neighbour for
// n-1 steps
// (facebookincubator/gloo gloo/allgather.cc, main: receive from rank-1, send to rank+1), its
// allreduce defaults to the ring (gloo/allreduce.cc: UNSPECIFIED and RING run `ring()`,
// reduce-scatter then allgather), and PyTorch 1.13's gloo has no reduce-scatter, so the emulated
// check writes the ring with isend/irecv. Each time adds ShapeDefaults' software costs, stated
// there for a runtime without NCCL: one op_latency per collective and a step overhead per ring step
// (network or intra-host).
//
// An all-gather also pays kAllgatherStartSegments of one of its segments (gloo's allgather
// keeps two segments of each step's block in flight: facebookincubator/gloo gloo/allgather.cc
// at 589850726e8a), a cost of gloo on a shared, queued link as the emulated check runs it, not
// of the wire: a gloo send waits until its receiver announces the receive
// (gloo/transport/tcp/pair.cc), and consecutive all-gathers end on the ranks a segment or so
// apart, so each starts with the ring stalled. Measured on the emulated clusters (sharded
// sweep's --trace, forward pass: all-gathers back to back, nothing else on the links): 1 block
// (0.89 MB fp16) on 2 racks at 50 Mbit/s 121-122 ms against the wire's 114 ms, 2 blocks
// 249-263 ms against 228 ms; on 4x1 at 200 Mbit/s 29-32 ms against 28.7 ms; timed alone after a
// barrier (no stall) the same all-gathers take the wire's time (104 ms / 218 ms with the tbf
// burst). gloo's ring allreduce of the HSDP replicas is measured within 2 % without it, so it
// is not added there.

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>

#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "planning/sharded_step.h"
#include "timing/cluster_shape.h"
#include "topology/topology.h"

namespace topotune::tune {

/// Segments of an all-gather's step (gloo: two per step) lost at its start (measured; header).
inline constexpr double kAllgatherStartSegments = 0.5;

/// Which ranks a collective runs on.
enum class ShardGroup { World, Node, Replica };

class ShardedMpiComm {
 public:
  /// Builds the cluster's topology. Errors: the builder's.
  static Expected<std::shared_ptr<const ShardedMpiComm>> create(const topo::ClusterSpec& spec,
                                                                ShapeDefaults costs = {});
  /// On a built topology (tests).
  static std::shared_ptr<const ShardedMpiComm> on(topo::Topology topology,
                                                  ShapeDefaults costs = {});

  /// Time of `collective` (Allgather, ReduceScatter or Allreduce) of `bytes` (nccl-tests'
  /// size: the whole buffer of one group) in `dtype` on `group`. Replica: every local rank's
  /// group at once. 0 for a group of one rank or no bytes. Errors: the generator's and the
  /// simulator's. Memoised (not thread-safe).
  Expected<Seconds> time(sched::Collective collective, ShardGroup group, Bytes bytes,
                         sched::DataType dtype) const;

  /// time() as a sharded-step timer; the comm object must outlive it.
  CollectiveTime timer(sched::Collective collective, ShardGroup group, sched::DataType dtype) const;

  /// Ranks of one group of `group`.
  int group_ranks(ShardGroup group) const;

 private:
  ShardedMpiComm(topo::Topology topology, ShapeDefaults costs)
      : topology_(std::move(topology)), costs_(costs) {}
  Expected<Seconds> simulate(sched::Collective collective, ShardGroup group, Bytes bytes,
                             sched::DataType dtype) const;

  topo::Topology topology_;
  ShapeDefaults costs_;
  mutable std::map<std::tuple<int, int, std::int64_t, int>, Seconds> cache_;
};

}  // namespace topotune::tune
