#pragma once
// FlowEngine: the discrete-event loop behind Simulator::run (internal to simulator/).
//
// Events are (time, sequence number) in an EventQueue; every event at the same instant is
// handled before the solver re-solves once for the whole batch, so a thousand flows starting
// together cost one solve of each touched component, not a thousand. A flow remembers the
// sequence number of its one valid completion event: when its rate changes, a new event is
// pushed and the old one is dropped when popped (lazy deletion), which is cheaper than a
// decrease-key heap.
//
// Before the run every transfer's route is looked up once (RouteCache) and the links are
// grouped into classes crossed by the same routes (LinkClasses): the solver has one constraint
// per class and the engine one user count and busy time per class, which is the same answer
// at a fraction of the work per flow (docs/simulator.md, "How it stays fast").

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"
#include "simulator/event_queue.h"
#include "simulator/link_classes.h"
#include "simulator/max_min_solver.h"
#include "simulator/network_model.h"
#include "simulator/route_cache.h"
#include "simulator/sim_result.h"
#include "simulator/simulator.h"

namespace topotune::sim {

class FlowEngine {
 public:
  FlowEngine(const NetworkModel& network, const SimOptions& options,
             const sched::Schedule& schedule);

  /// Runs to completion and fills the result's makespan, transfers, links and events.
  Expected<void> run(SimResult& result);

 private:
  /// An event's tag: a flow's end (its id is a solver variable), or else a transfer's start
  /// (its id is the transfer, its tag the route's RouteCache index, or RouteCache::kNotCached).
  static constexpr std::uint32_t kFlowEnd = RouteCache::kNotCached - 1;
  enum class Phase : std::uint8_t { Network, Reduction };
  /// A flow in progress (indexed by solver variable id, reused after it ends).
  struct Flow {
    std::uint32_t transfer = 0;
    Phase phase = Phase::Network;
    std::uint64_t finish_event = kNoEvent;  ///< seq of the valid completion event
    double remaining = 0;                   ///< bytes left as of `last`
    double rate = 0;                        ///< bytes/s since `last`
    double last = 0;
  };

  Expected<void> map_endpoints();
  std::string first_use(EndpointId id) const;
  void build_dependents();
  void find_routes();
  void fill_link_stats(SimResult& result) const;
  static constexpr std::uint64_t kNoEvent = ~std::uint64_t{0};
  void make_ready(std::uint32_t t);
  void start(std::uint32_t t, std::uint32_t route);
  void begin_flow(std::uint32_t t, Phase phase, std::span<const int> constraints, double bound);
  void end_flow(int v);
  void complete(std::uint32_t t);
  void apply_rates(std::span<const int> changed);
  int reduce_constraint(NodeId device);
  Expected<void> check_all_done() const;
  /// Fails when the process has grown past options_.memory_limit.
  Expected<void> check_memory_use(std::uint64_t events) const;
  static constexpr std::uint64_t kMemoryCheckEvents = std::uint64_t{1} << 14;

  const NetworkModel& network_;
  RouteCache routes_;  ///< the network's routes, each computed once
  const SimOptions& options_;
  const sched::Schedule& schedule_;
  SimResult* result_ = nullptr;
  double now_ = 0;

  std::vector<NodeId> device_;                  ///< per endpoint
  std::vector<std::uint32_t> waiting_;          ///< per transfer: dependencies not yet complete
  std::vector<std::uint32_t> dependent_begin_;  ///< CSR of the reverse edges (n + 1 entries)
  std::vector<std::uint32_t> dependents_;
  std::size_t completed_ = 0;

  MaxMinSolver solver_;
  std::vector<Flow> flows_;
  std::vector<int> reduce_constraint_;  ///< per device, -1 until first used
  /// Per transfer: its route's RouteCache index (or RouteCache::kNotCached).
  std::vector<std::uint32_t> route_of_;
  LinkClasses classes_;  ///< the solver's link constraints: class k is constraint k
  /// What the run accumulates per link class, in one place so that a flow's start or end
  /// touches one cache line per class (every link of a class has the same figures).
  struct LinkState {
    Seconds active{0};
    double busy_since = 0;    ///< when the class last went from no flow to one
    std::uint32_t users = 0;  ///< flows on it now
  };
  std::vector<LinkState> links_;    ///< per class
  std::vector<Bytes> route_bytes_;  ///< per kept route: bytes of the flows that took it
  std::vector<Bytes> link_bytes_;   ///< per link: bytes of flows on routes not kept
  EventQueue events_;
  std::vector<int> scratch_;   ///< a flow's constraints when they are more than its links
  std::vector<int> uncached_;  ///< the links of a route the cache does not keep
};

}  // namespace topotune::sim
