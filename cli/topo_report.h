#pragma once
// topo's table and CSV (cli/reporter.h): the cluster's summary (instance, nodes, GPUs, NICs,
// fabric tiers, NVLink domains) above its link classes, one row each, with the figures the
// model assumed below them. The CSV is the link classes alone; JSON and DOT are the
// topology library's own documents (topology/topology_export.h).

#include <ostream>

#include "cli/output_format.h"
#include "topology/topology.h"

namespace topotune::cli {

/// Renders `t` as the table or CSV reporter.
void print_topo_report(const topo::Topology& t, OutputFormat format, std::ostream& out);

}  // namespace topotune::cli
