#pragma once
// Simulator: runs a Schedule over a network with contention, at flow level.
//
// The model, per transfer (src endpoint -> dst endpoint, `bytes`, channel):
//   1. It becomes *ready* when all its dependencies have completed.
//   2. It pays its route's latency (sum of the links' latencies), then starts its bandwidth
//      phase: a flow over every link of the route, sharing each link's capacity max-min fairly
//      with every other flow on it (MaxMinSolver), and limited by the path's per-flow cap (AWS
//      TCP) when the network has one. Rates are re-solved whenever a flow starts or ends, only
//      in the component of links and flows that event touches.
//   3. A reduce transfer then pays its receiver's reduction: `bytes` through a per-device
//      reduction resource of capacity reduce_bandwidth(dst device). It is a resource, not a
//      private timer, so that concurrent reductions on one device (a parameter server summing
//      eight inputs) share its throughput instead of each getting all of it. See ReductionModel
//      for the alternatives.
//   4. It completes (delivered, and reduced); zero-byte transfers complete after the latency.
// So an uncontended transfer takes latency + bytes/bottleneck (+ bytes/reduce_bw): the α–β
// closed form exactly, which is what the tests check; contention only ever adds to it.
//
// Endpoints map to devices through the NetworkModel: for a Topology, rank r -> gpu_of(r) and a
// HostCpu endpoint -> cpu_of_host(host). A schedule naming a party the network does not have is
// an Errc::InvalidSchedule error, never a crash.
//
// Deterministic: simultaneous events are processed in the order they were created (sequence
// number), and nothing iterates an unordered container. Memory: 28 bytes per transfer and 4 per
// dependency on top of the schedule (16 of the 28 are the recorded timings, which SimOptions can
// turn off; 4 its route's index), plus per-link, per-route and per-concurrent-flow state.

#include <memory>

#include "algorithms/schedule/reduced_schedule.h"
#include "algorithms/schedule/schedule.h"
#include "core/expected.h"
#include "simulator/network_model.h"
#include "simulator/sim_result.h"
#include "topology/topology.h"

namespace topotune::sim {

/// How a reduce transfer's receiver pays for the sum.
enum class ReductionModel {
  /// After delivery, bytes / reduce_bandwidth through the device's shared reduction resource
  /// (default: what the closed forms assume, time = α + S/β + S/γ).
  Serial,
  /// Reduction pipelined with delivery (NCCL reduces in the receiving kernel): the flow also
  /// crosses the reduction resource, so its rate is min(link share, reduction share).
  Overlapped,
  /// No reduction cost.
  Ignore,
};

struct SimOptions {
  ReductionModel reduction = ReductionModel::Serial;
  /// Apply the network's per-flow rate caps (off: what-if the caps were lifted).
  bool apply_flow_caps = true;
  /// Keep per-transfer ready/end times in SimResult::transfers (16 bytes a transfer).
  bool record_transfers = true;
  /// Simulate one representative of each set of twin transfers when the schedule and the
  /// network share a translation symmetry (symmetry.h): the same answer (to rounding) at a
  /// fraction of the cost. Off: every transfer is simulated.
  bool exploit_symmetry = true;
  /// The resident size the run may reach (0: unlimited). The estimate checked before a
  /// schedule is built cannot see how many flows will be in flight at once (every flow of a
  /// parameter-server step is): the run compares its resident size with this every 2^16
  /// events and stops with an error past it, before the kernel has to kill it.
  Bytes memory_limit{0};
};

class Simulator {
 public:
  /// Simulates on a topology, which must outlive the Simulator.
  explicit Simulator(const topo::Topology& topo, SimOptions options = {});
  /// Simulates on any network model, which must outlive the Simulator.
  explicit Simulator(const NetworkModel& network, SimOptions options = {});
  ~Simulator();
  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;

  /// Runs the schedule. Errors: Errc::InvalidSchedule for an endpoint the network does not
  /// have; Errc::Internal if transfers can never complete (a route with zero capacity).
  Expected<SimResult> run(const sched::Schedule& schedule) const;

  /// Runs a schedule given by its representatives (sched::ReducedSchedule, written by a
  /// generator), as run() runs the quotient it derives itself: the same answer as the full
  /// schedule, at the cost of the representatives. SimResult::symmetry is the orbit size and
  /// SimResult::transfers (when recorded) holds the representatives' timings, by their ids.
  /// Errors: Errc::InvalidArgument when the network's translation is not the schedule's shift
  /// (check_reduced in symmetry.h); then as run().
  Expected<SimResult> run(const sched::ReducedSchedule& reduced) const;

  const SimOptions& options() const { return options_; }

 private:
  std::unique_ptr<NetworkModel> owned_;
  const NetworkModel* network_;
  SimOptions options_;
};

}  // namespace topotune::sim
