#include "cli/topo_report.h"

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/reporter.h"
#include "core/quantity_parse.h"
#include "core/string_printf.h"
#include "topology/topology_export.h"

namespace topotune::cli {
namespace {

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

// The summary above the link classes: the cluster, its GPUs, NICs and fabric tiers.
std::string summary(const topo::Topology& t) {
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
  if (t.num_nvlink_domains() > 0)
    o << "multi-node NVL  " << t.num_nvlink_domains() << " domain(s) of up to "
      << t.nvlink_domain_hosts() << " nodes (" << t.nvlink_domain_hosts() * t.gpus_per_host()
      << " GPUs) sharing one NVLink fabric\n";
  if (t.spec().fabric.per_flow_cap)
    o << "per-flow cap    " << format_rate(*t.spec().fabric.per_flow_cap) << " = "
      << t.spec().fabric.per_flow_cap->value * 8 / 1e9 << " Gbps (AWS per-flow TCP limit)\n";
  o << "\nlink classes (efficiency and latency are model assumptions, docs/model.md):\n"
    << string_printf("  %-17s %7s  %-28s %6s  %s\n", "class", "links*",
                     "nominal per link (per dir)", "effic.", "latency/hop");
  return o.str();
}

// Under the link classes: what "links*" counts, and the figures the model assumed.
std::vector<std::string> footer(const topo::Topology& t) {
  std::vector<std::string> lines = {"  * directed links: a full-duplex cable is two links\n"};
  const auto unknowns = topo::unknown_figures(t);
  if (!unknowns.empty())
    lines.push_back("\nunknown figures and the model defaults used instead:\n");
  for (const topo::UnknownFigure& u : unknowns)
    lines.push_back("  " + u.figure + ": " + u.model_default + "\n");
  return lines;
}

// A link class: the table's text beside the CSV's numbers (rates in bytes per second per
// direction, the latency in seconds).
const std::vector<Column>& link_class_columns() {
  static const std::vector<Column> columns = {
      {"class", "  %-17s"},       {"links", " %7lld"},     {"nominal", "  %-28s", false},
      {"nominal_min_Bps", ""},    {"nominal_max_Bps", ""}, {"efficiency", " %6.2f"},
      {"latency", "  %s", false}, {"latency_s", ""}};
  return columns;
}

std::vector<Cell> link_class_cells(const topo::LinkClassSummary& c) {
  std::string rates;
  for (BytesPerSec r : c.nominal) rates += (rates.empty() ? "" : ", ") + format_rate(r);
  return {std::string(topo::link_kind_name(c.kind)),
          std::int64_t{c.links},
          rates,
          c.nominal.front().value,
          c.nominal.back().value,
          c.efficiency,
          format_duration(c.latency),
          c.latency.value};
}

}  // namespace

void print_topo_report(const topo::Topology& t, OutputFormat format, std::ostream& out) {
  const std::unique_ptr<Reporter> reporter = Reporter::make(format, out);
  reporter->begin({{summary(t)}, link_class_columns()});
  for (const topo::LinkClassSummary& c : topo::link_classes(t)) reporter->row(link_class_cells(c));
  reporter->end(footer(t));
}

}  // namespace topotune::cli
