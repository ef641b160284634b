#pragma once
// FabricProbe: what the cluster's network fabric (placement, spine oversubscription, rails,
// per-flow caps) does to the traffic of each kind of algorithm, measured by the flow
// simulator, so that every candidate of the planner is timed on the same Topology.
//
// Three steady-state traffic patterns, each one round of concurrent equal flows with no
// dependencies (what a pipelined collective keeps in flight in its bandwidth regime):
//   - ring(C): C channels; channel c leaves every host for the next one through NIC c % nics
//     (NCCL's rings enter and leave a node on the same NIC, channels spread over the NICs);
//   - tree(C): NCCL's double binary tree over the hosts (tree 0 in heap order, tree 1 on the
//     mirrored host order), channels alternating between the trees, every tree edge carrying
//     a flow up and one down (reduce and broadcast overlap);
//   - rails: every GPU sends to the same GPU of the next host (what hierarchical, rhd and
//     parameter-server schedules do when all GPUs of a host cross at once).
// Each pattern runs on the cluster's topology and on the reference: the same cluster in one
// non-blocking segment (cluster placement, no oversubscription), which is what every
// nccl-tests log the NCCL model was fitted on ran on. The share = reference time / actual time
// (1 on a non-blocking cluster, exactly: the same flows on the same links). Per-flow caps
// apply to both (the reference keeps the cluster placement's cap). Known limit: a channel is
// one flow, so a per-flow cap (TCP) binds NCCL's socket transport, which opens several sockets
// per channel, harder than it does in reality.

#include "algorithms/nccl/nccl_system.h"
#include "core/expected.h"
#include "core/units.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

struct FabricProbe {
  double ring_share = 1.0;   ///< ring(C) pattern: reference time / actual time, (0, 1]
  double tree_share = 1.0;   ///< tree(C) pattern
  double rails_share = 1.0;  ///< rails pattern
  /// Per-GPU rate of the rails pattern on the actual fabric (bytes/s); 0 for
  /// one host.
  BytesPerSec rails_rate{0};
  /// Latency of one inter-host crossing (rank 0 to the last host's first rank)
  /// beyond the reference's: the spine tier of partition/spread placements.
  Seconds extra_crossing_latency{0};

  /// The NCCL predictor's view of it (NcclSystem::fabric).
  algo::NcclFabric nccl() const {
    return algo::NcclFabric{ring_share, tree_share, extra_crossing_latency};
  }
};

/// Runs the three patterns (`channels` for ring and tree: NCCL's inter-node
/// count) on `spec`'s topology and on its reference. One host: the defaults.
/// Errors: the topology builder's, or a simulation failure (an unreachable
/// route).
Expected<FabricProbe> probe_fabric(const topo::ClusterSpec& spec, int channels);

/// The channels NCCL runs its rings on for `system` (its topology search and Postset, as
/// the NCCL predictor emulates them for the latest modeled release).
int nccl_inter_node_channels(const algo::NcclSystem& system, const algo::NcclModelParams& params);

/// nccl_system_from_cluster(spec) with the fabric probed on the topology: what
/// the NCCL predictor sees of this cluster, placement included.
Expected<algo::NcclSystem> nccl_system_on_fabric(const topo::ClusterSpec& spec,
                                                 const algo::NcclModelParams& params);

}  // namespace topotune::tune
