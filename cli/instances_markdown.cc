// The generated block of docs/catalog.md (see instances_markdown.h).

#include "cli/instances_markdown.h"

#include <algorithm>
#include <string>

#include "core/string_printf.h"
#include "topology/instance_check.h"

namespace topotune::cli {
namespace {

bool is_unknown(const topo::InstanceSpec& in, const std::string& path) {
  return std::find(in.unknowns.begin(), in.unknowns.end(), path) != in.unknowns.end();
}

// Back in the file's units: %g prints 25 and 12.5 as the files write them.
std::string fabric_cell(const topo::InstanceSpec& in) {
  std::string cell = topo::fabric_name(in.fabric);
  if (in.fabric != topo::IntraFabric::PcieOnly)
    cell +=
        string_printf(" (%d x %g)", in.nvlinks_per_gpu, in.nvlink_bandwidth_per_link.value / 1e9);
  if (in.nvlink_domain_hosts > 1)
    cell += ", " + std::to_string(in.nvlink_domain_hosts) + "-host NVLink domain";
  return cell;
}

std::string overview_row(const topo::InstanceSpec& in) {
  std::string switches = is_unknown(in, "host.pcie_switches") ? "unknown"
                         : in.pcie_switches.empty()           ? "none"
                                                    : std::to_string(in.pcie_switches.size());
  std::string transport = topo::transport_name(in.transport);
  if (in.efa_version) transport += " v" + std::to_string(*in.efa_version);
  return string_printf("| %s | %d x %s | %s | %s | %d x %g Gbps | %s | %s | %s | %zu |\n",
                       in.name.c_str(), in.num_gpus, in.gpu.model.c_str(), fabric_cell(in).c_str(),
                       in.nvls ? "yes" : "no", in.num_nics, in.nic_bandwidth.value * 8 / 1e9,
                       transport.c_str(), in.gpudirect_rdma ? "yes" : "no", switches.c_str(),
                       in.unknowns.size());
}

// One cell of the tag table: the figures carrying `tag`, in the schema's order.
std::string tag_cell(const topo::InstanceSpec& in, const std::string& tag) {
  std::string cell;
  for (const std::string& path : topo::instance_figure_paths()) {
    const auto it = in.tags.find(path);
    if (it != in.tags.end() && it->second == tag) cell += (cell.empty() ? "`" : ", `") + path + "`";
  }
  return cell.empty() ? "-" : cell;
}

}  // namespace

void write_catalog_markdown(const std::vector<topo::InstanceSpec>& all, std::ostream& out) {
  out << "| instance | GPUs | fabric (links x GBps/dir) | NVLS | NICs | transport | GPUDirect RDMA "
         "| PCIe switches | unknown figures |\n"
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const topo::InstanceSpec& in : all) out << overview_row(in);
  out << "\n### Tagged figures, per instance\n\n"
         "| instance | derived | secondary | unverified | disagree |\n"
         "| --- | --- | --- | --- | --- |\n";
  for (const topo::InstanceSpec& in : all) {
    out << "| " << in.name;
    for (const char* tag : {"derived", "secondary", "unverified", "disagree"})
      out << " | " << tag_cell(in, tag);
    out << " |\n";
  }
  out << "\n### Unknown figures, per instance\n";
  for (const topo::InstanceSpec& in : all) {
    out << "\n**" << in.name << "**\n\n";
    if (in.unknowns.empty()) out << "- (none)\n";
    // The loader keeps an unknown figure's note as its source, after "unknown: ".
    for (const std::string& path : in.unknowns) {
      const std::string& source = in.sources.at(path);
      out << "- `" << path << "`: " << source.substr(source.starts_with("unknown: ") ? 9 : 0)
          << "\n";
    }
  }
}

}  // namespace topotune::cli
