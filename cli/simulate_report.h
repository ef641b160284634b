#pragma once
// simulate's result and its renderings through the reporters (cli/reporter.h), one link
// declaration for all three: the table (the run's figures, then the five busiest links), CSV
// (every link that carried traffic, one row each) and JSON (the run's figures as head fields,
// then those links under "links"; the run's figures are table and JSON only).

#include <ostream>
#include <string>

#include "cli/output_format.h"
#include "core/expected.h"
#include "simulator/sim_result.h"
#include "timing/collective_simulation.h"
#include "topology/topology.h"

namespace topotune::cli {

/// A simulated run: the collective (its schedule, possibly reduced), what the simulator made
/// of it, and where.
struct SimulateReport {
  const tune::CollectiveSimulation& sim;
  const sim::SimResult& result;
  const topo::Topology& topology;
  std::string cluster;  ///< "p4d.24xlarge x 4 (cluster placement)"
};

/// Renders `report` as `format` says.
Expected<void> print_simulate_report(OutputFormat format, const SimulateReport& report,
                                     std::ostream& out);

}  // namespace topotune::cli
