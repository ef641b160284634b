// `topotune topo`: the cluster graph of an instance type x node count x placement (or of a
// --cluster file) as a summary table, its link classes as CSV, JSON for scripts, or Graphviz
// DOT.

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>
#include <sstream>

#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "cli/output_format.h"
#include "cli/topo_report.h"
#include "core/memory_budget.h"
#include "topology/topology_export.h"

namespace topotune::cli {
namespace {

struct TopoOptions {
  ClusterFlags cluster;
  OutputFormat format = OutputFormat::Table;
};

}  // namespace

CommandRun setup_topo(CLI::App& sub) {
  auto o = std::make_shared<TopoOptions>();
  add_cluster_flags(sub, o->cluster);
  add_format_option(sub, o->format,
                    {OutputFormat::Table, OutputFormat::Json, OutputFormat::Dot, OutputFormat::Csv},
                    "table (default), json (every device and link), dot (Graphviz), or csv (the "
                    "link classes, one row each)");
  sub.footer(
      "Examples:\n"
      "  topotune topo --instance p4d.24xlarge --nodes 4\n"
      "  topotune topo --instance p5.48xlarge --nodes 16 --placement partition --format json\n"
      "  topotune topo --instance p3.16xlarge --nodes 2 --format dot | dot -Tsvg > p3.svg\n"
      "  topotune topo --cluster my_cluster.json --nodes 8\n"
      "  topotune topo --instance p5.48xlarge --nodes 64 --format csv");
  return [o](std::ostream& out) -> Expected<void> {
    TT_TRY(topo::ClusterSpec spec, resolve_cluster(o->cluster));
    TT_TRY(topo::Topology t, topo::build_topology(spec));
    if (o->format == OutputFormat::Json) {
      TT_TRY(const Bytes budget, available_memory());
      TT_TRY_VOID(check_memory(topo::topology_json_memory(t), budget,
                               "the JSON of " + std::to_string(t.num_links()) + " links"));
    }
    // Render fully before writing, so an error never leaves partial output.
    if (o->format == OutputFormat::Json || o->format == OutputFormat::Dot) {
      out << (o->format == OutputFormat::Json ? topo::topology_to_json(t)
                                              : topo::topology_to_dot(t));
    } else {
      std::ostringstream text;
      print_topo_report(t, o->format, text);
      out << text.str();
    }
    return {};
  };
}

}  // namespace topotune::cli
