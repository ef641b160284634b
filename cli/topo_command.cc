// `topotune topo`: the cluster graph of an instance type x node count x placement (or of a
// --cluster file) as a summary table, JSON for scripts, or Graphviz DOT.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "cli/output_format.h"
#include "core/memory_budget.h"
#include "core/quantity_parse.h"
#include "core/string_printf.h"
#include "topology/topology_export.h"

namespace topotune::cli {
namespace {

struct TopoOptions {
  ClusterFlags cluster;
  OutputFormat format = OutputFormat::Table;
};

std::string link_class_rows(const topo::Topology& t) {
  std::ostringstream o;
  std::string line;
  line = string_printf("  %-17s %7s  %-28s %6s  %s\n", "class", "links*",
                       "nominal per link (per dir)", "effic.", "latency/hop");
  o << line;
  for (int k = 0; k < topo::kNumLinkKinds; ++k) {
    const auto kind = static_cast<topo::LinkKind>(k);
    int count = 0;
    std::set<double> rates;
    for (std::size_t i = 0; i < t.num_links(); ++i) {
      const topo::Link& l = t.link(LinkId(static_cast<std::int32_t>(i)));
      if (l.kind != kind) continue;
      ++count;
      rates.insert(l.nominal.value);
    }
    if (count == 0) continue;
    std::string r;
    for (double v : rates) r += (r.empty() ? "" : ", ") + format_rate(BytesPerSec(v));
    const topo::LinkClassParams& p = t.spec().params(kind);
    line = string_printf("  %-17s %7d  %-28s %6.2f  %s\n", topo::link_kind_name(kind), count,
                         r.c_str(), p.efficiency, format_duration(p.latency).c_str());
    o << line;
  }
  o << "  * directed links: a full-duplex cable is two links\n";
  return o.str();
}

std::string ratio(double x) { return string_printf("%.2f:1", x); }

std::string per_hop(Seconds latency) { return format_duration(latency) + "/hop"; }

// The tiers above the hosts, one line each: leaves (one per rack, or one per group of rails),
// the spine (one per pod under a super-spine), the super-spine; each with its oversubscription
// and latency per hop.
std::string fabric_lines(const topo::Topology& t) {
  const topo::ClusterSpec& spec = t.spec();
  const topo::FabricParams& f = spec.fabric;
  const int leaves = t.num_racks() * t.leaves_per_rack();
  const int tiers = leaves == 1 ? 1 : t.num_pods() > 1 ? 3 : 2;
  std::string s = "fabric          " + std::to_string(tiers) + (tiers == 1 ? " tier" : " tiers") +
                  "\n  leaf          " + std::to_string(leaves);
  if (t.leaves_per_rack() > 1) {
    s += " (rail-optimised: " + std::to_string(t.leaves_per_rack()) + " per rack of " +
         std::to_string(t.num_hosts() / t.num_racks()) + " nodes, " +
         std::to_string(f.rails_per_leaf) + " NIC rail(s) each)";
  } else {
    s += leaves == 1 ? " (every node)" : " (one per rack)";
  }
  s += ", NIC links " + per_hop(spec.params(topo::LinkKind::Network).latency) + "\n";
  if (tiers == 1) return s;
  const Seconds uplink = spec.params(topo::LinkKind::Uplink).latency;
  s += "  spine         " + std::to_string(t.num_pods()) +
       (t.num_pods() > 1 ? " (one per pod of " + std::to_string(t.racks_per_pod()) + " racks)"
                         : "") +
       ", leaf uplinks " + ratio(f.oversubscription) + ", " + per_hop(uplink) + "\n";
  if (tiers == 2) return s;
  s += "  super-spine   1, spine uplinks " + ratio(f.pod_oversubscription) + ", " +
       per_hop(f.superspine_latency.value_or(uplink)) + "\n";
  return s;
}

std::string table(const topo::Topology& t) {
  const topo::InstanceSpec& in = t.spec().instance;
  std::ostringstream o;
  o << "instance        " << in.name << (in.description.empty() ? "" : "  (" + in.description + ")")
    << "\nnodes           " << t.num_hosts() << "  (" << topo::placement_name(t.spec().placement)
    << " placement, " << t.num_racks() << (t.num_racks() == 1 ? " rack" : " racks")
    << (t.num_racks() > 1 ? ", spine oversubscription " +
                                std::to_string(t.spec().fabric.oversubscription).substr(0, 4) + ":1"
                          : "")
    << ")\nGPUs            " << t.num_ranks() << "  (" << t.gpus_per_host() << " per node, "
    << in.gpu.model << ", " << topo::fabric_name(in.fabric) << ")\nNICs            "
    << t.num_hosts() * in.num_nics << "  (" << in.num_nics << " per node, "
    << format_rate(in.nic_bandwidth) << " = " << in.nic_bandwidth.value * 8 / 1e9 << " Gbps each, "
    << topo::transport_name(in.transport) << ", GPUDirect RDMA "
    << (in.gpudirect_rdma ? "yes" : "no") << ")\nNIC per node    "
    << format_rate(t.host_nic_bandwidth()) << "\nbisection       "
    << format_rate(t.bisection_bandwidth()) << "\n"
    << fabric_lines(t);
  for (const topo::NvLinkDomain& d : topo::nvlink_domains(t))
    o << "NVLink domain   " << d.gpus.size() << " GPUs per node, "
      << format_rate(d.per_gpu_bandwidth) << " per GPU per direction\n";
  if (t.spec().fabric.per_flow_cap)
    o << "per-flow cap    " << format_rate(*t.spec().fabric.per_flow_cap) << " = "
      << t.spec().fabric.per_flow_cap->value * 8 / 1e9 << " Gbps (AWS per-flow TCP limit)\n";
  o << "\nlink classes (efficiency and latency are model assumptions, docs/model.md):\n"
    << link_class_rows(t);
  const auto unknowns = topo::unknown_figures(t);
  if (!unknowns.empty()) o << "\nunknown figures and the model defaults used instead:\n";
  for (const topo::UnknownFigure& u : unknowns)
    o << "  " << u.figure << ": " << u.model_default << "\n";
  return o.str();
}

}  // namespace

CommandRun setup_topo(CLI::App& sub) {
  auto o = std::make_shared<TopoOptions>();
  add_cluster_flags(sub, o->cluster);
  add_format_option(sub, o->format, {OutputFormat::Table, OutputFormat::Json, OutputFormat::Dot},
                    "Output format");
  sub.footer(
      "Examples:\n"
      "  topotune topo --instance p4d.24xlarge --nodes 4\n"
      "  topotune topo --instance p5.48xlarge --nodes 16 --placement partition --format json\n"
      "  topotune topo --instance p3.16xlarge --nodes 2 --format dot | dot -Tsvg > p3.svg\n"
      "  topotune topo --cluster my_cluster.json --nodes 8");
  return [o](std::ostream& out) -> Expected<void> {
    TT_TRY(topo::ClusterSpec spec, resolve_cluster(o->cluster));
    TT_TRY(topo::Topology t, topo::build_topology(spec));
    if (o->format == OutputFormat::Json) {
      TT_TRY(const Bytes budget, available_memory());
      TT_TRY_VOID(check_memory(topo::topology_json_memory(t), budget,
                               "the JSON of " + std::to_string(t.num_links()) + " links"));
    }
    // Render fully before writing, so an error never leaves partial output.
    const std::string text = o->format == OutputFormat::Json  ? topo::topology_to_json(t)
                             : o->format == OutputFormat::Dot ? topo::topology_to_dot(t)
                                                              : table(t);
    out << text;
    return {};
  };
}

}  // namespace topotune::cli
