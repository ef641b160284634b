#pragma once
// An independent oracle for the flow simulator: the same schedule on the same network, run by
// SimGrid (Debian's libsimgrid-dev, S4U activity DAG) with its fluid model reduced to plain
// max-min fairness: CM02 model, no latency/bandwidth factors, no cross-traffic, no TCP window
// bound. Test-only code (tests/simulator/), never linked into topotune.
//
// Mapping, one to one with simulator.h's model:
//   - every device of the network is a SimGrid host whose speed is its reduction throughput
//     (1 flop = 1 byte reduced), so concurrent reductions on one device share it max-min;
//   - every directed link is a SimGrid link (shared, latency 0) of the same capacity;
//   - a transfer is a Comm of its bytes over its route's links plus one private fat-pipe link
//     whose bandwidth is the path's per-flow cap, if it has one (a fat pipe gives every flow
//     its full rate: a per-flow limit, never shared); a reduce transfer is that Comm followed by
//     an Exec of its bytes on the receiver (ReductionModel::Serial); dependencies are activity
//     dependencies: it starts when the last of them completes;
//   - the route's latency is paid first, by a Comm of no payload over a private route of that
//     latency: CM02 shares bandwidth in inverse proportion to each flow's route latency (TCP's
//     RTT unfairness, which topotune does not model), so the data Comms see no latency;
//   - topotune's routes may depend on the channel (rails) and SimGrid has one route per pair of
//     hosts, so each device has one SimGrid host per channel its transfers use.
//
// SimGrid keeps global state (one engine per process), so each replay runs in a forked child
// and sends the completion times back through a pipe.

#include <vector>

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"
#include "simulator/network_model.h"

namespace topotune::sim::testing {

/// Each transfer's completion time (delivered, and reduced for a reduce transfer), in seconds,
/// indexed by TransferId, as SimGrid computes it. Errors: a transfer whose two endpoints are
/// one device (SimGrid has no local copy), SimGrid failing in the child.
Expected<std::vector<double>> simgrid_completion_times(const NetworkModel& network,
                                                       const sched::Schedule& schedule);

}  // namespace topotune::sim::testing
