#pragma once
// Hand-built schedules for the runtime tests, independent of the algorithms module (which the
// runtime may not depend on): a ring allreduce, a parameter server on a host CPU, a sharded
// parameter server, a binary-tree allreduce, a two-level (hierarchical) allreduce and a
// broadcast chain whose dependencies run through other ranks' transfers.

#include "algorithms/schedule/schedule.h"

namespace topotune::rt::testing {

/// Ring allreduce (reduce-scatter then allgather), `chunks` pipelined pieces per block.
sched::Schedule ring_allreduce(const sched::CollectiveSpec& spec, int chunks = 1);
/// Every rank pushes (reduce) into one CPU server run by rank 0, then pulls the sum back.
sched::Schedule ps_allreduce(const sched::CollectiveSpec& spec);
/// One CPU server per rank r (run by r) owning block r: push blocks, pull blocks.
sched::Schedule sharded_ps_allreduce(const sched::CollectiveSpec& spec);
/// Binary tree: reduce to rank 0 (children into parents), then broadcast down.
sched::Schedule tree_allreduce(const sched::CollectiveSpec& spec);
/// Hosts of `per_host` ranks: reduce to each host's leader, ring between leaders, broadcast.
sched::Schedule hierarchical_allreduce(const sched::CollectiveSpec& spec, int per_host);
/// Broadcast from rank 0 as a chain where each send depends only on the previous rank's
/// *send* (so the data dependency on the rank's own receive is implied transitively).
sched::Schedule broadcast_chain(const sched::CollectiveSpec& spec);
/// Allgather on a ring.
sched::Schedule ring_allgather(const sched::CollectiveSpec& spec);

}  // namespace topotune::rt::testing
