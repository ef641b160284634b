#pragma once
// simulate_collective: one algorithm's schedule generated for a cluster and run through the
// flow simulator, written reduced when it can be.
//
// On a cluster with a translation symmetry (identical hosts in identical racks,
// Topology::host_period), the ring and hierarchical(ring) schedules repeat under a shift by a
// period of hosts, and the simulator needs one transfer per orbit of twins
// (simulator/symmetry.h). Generating the full schedule to find them costs time and memory in
// proportion to every transfer (65,536 ranks of hierarchical(ring): 1.07 G transfers, ~100 GiB);
// Algorithm::generate_reduced writes the representatives only (4.2 M), and the simulator runs
// them as it runs the quotient it derives itself. Anything else is generated in full, where
// the simulator still reduces what it can. The answers are the same: tests/simulator/
// direct_quotient_test.cc compares all three paths on every case small enough.

#include <cstdint>
#include <optional>
#include <string>

#include "algorithms/algorithm.h"
#include "algorithms/rank_layout.h"
#include "algorithms/schedule/collective_spec.h"
#include "algorithms/schedule/schedule.h"
#include "core/expected.h"
#include "simulator/sim_result.h"
#include "simulator/simulator.h"
#include "topology/topology.h"

namespace topotune::tune {

/// How simulate_collective may generate the schedule.
enum class Generation {
  Auto,         ///< reduced at generation where it can be, else in full
  Full,         ///< in full, kept in the result (a trace shows every transfer)
  ReducedOnly,  ///< reduced at generation, or Errc::Unsupported (the full one is too big)
};

/// What simulate_collective ran.
struct CollectiveSimulation {
  sim::SimResult result;
  std::string algorithm;               ///< the schedule's name (Algorithm::name())
  std::int64_t transfers = 0;          ///< transfers of the full schedule
  std::int64_t simulated = 0;          ///< transfers the simulator ran (fewer when reduced)
  bool reduced_at_generation = false;  ///< the generator wrote the representatives only
  /// The full schedule, when it was built (not reduced at generation).
  std::optional<sched::Schedule> schedule;
};

/// Generates `algorithm`'s schedule for `spec` on `layout` (the topology's) and simulates it on
/// `topology` with `options`: reduced at generation when options.exploit_symmetry, the
/// topology has a translation and the algorithm writes a reduced schedule for it; otherwise
/// in full (Generation says which are allowed). Errors: the generator's (including its memory
/// budget refusal), the simulator's, and Unsupported for ReducedOnly without a reduction.
Expected<CollectiveSimulation> simulate_collective(const algo::Algorithm& algorithm,
                                                   const sched::CollectiveSpec& spec,
                                                   const algo::RankLayout& layout,
                                                   const topo::Topology& topology,
                                                   const sim::SimOptions& options,
                                                   Generation generation = Generation::Auto);

}  // namespace topotune::tune
