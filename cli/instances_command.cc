// `topotune instances`: the built-in instance catalog as a table or JSON.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/commands.h"
#include "cli/output_format.h"
#include "cli/reporter.h"
#include "core/quantity_parse.h"
#include "core/string_printf.h"
#include "topology/instance_catalog.h"

namespace topotune::cli {
namespace {

std::string gbps_text(double bytes_per_sec) {
  std::string buf;
  buf = string_printf("%g", bytes_per_sec * 8 / 1e9);
  return buf;
}

nlohmann::json instance_json(const topo::InstanceSpec& in) {
  const double nvlink = in.nvlink_bandwidth_per_link.value * in.nvlinks_per_gpu;
  return {{"name", in.name},
          {"vendor", in.vendor},
          {"description", in.description},
          {"sagemaker_name", in.sagemaker_name ? nlohmann::json(*in.sagemaker_name) : nullptr},
          {"gpus", in.num_gpus},
          {"gpu_model", in.gpu.model},
          {"gpu_arch", topo::arch_name(in.gpu.arch)},
          {"fabric", topo::fabric_name(in.fabric)},
          {"nvlink_per_gpu_Bps", nvlink},
          {"nics", in.num_nics},
          {"nic_bandwidth_Bps", in.nic_bandwidth.value},
          {"transport", topo::transport_name(in.transport)},
          {"gpudirect_rdma", in.gpudirect_rdma},
          {"unknowns", in.unknowns}};
}

const std::vector<Column>& instance_columns() {
  static const std::vector<Column> columns = {{"instance", "%-18s"},
                                              {"gpus_text", " %-22s", false},
                                              {"gpus", ""},
                                              {"gpu_model", ""},
                                              {"fabric", " %-12s"},
                                              {"nvlink_text", " %-14s", false},
                                              {"nvlink_per_gpu_Bps", ""},
                                              {"nics_text", " %-13s", false},
                                              {"nics", ""},
                                              {"nic_bandwidth_Bps", ""},
                                              {"transport", " %-11s"},
                                              {"gpudirect_rdma", " %-4s"},
                                              {"sagemaker_text", " %s", false},
                                              {"sagemaker_name", ""}};
  return columns;
}

/// The catalog through the table reporter (nominal figures, one line per instance) or the CSV
/// reporter (the same instances as numbers: bytes per second per direction).
void report(const std::vector<topo::InstanceSpec>& all, OutputFormat format, std::ostream& out) {
  const std::unique_ptr<Reporter> r = Reporter::make(format, out);
  r->begin({{string_printf("%-18s %-22s %-12s %-14s %-13s %-11s %-4s %s\n", "instance", "GPUs",
                           "fabric", "NVLink/GPU", "NICs", "transport", "GDR", "SageMaker")},
            instance_columns()});
  for (const topo::InstanceSpec& in : all) {
    const BytesPerSec nvlink = in.nvlink_bandwidth_per_link * in.nvlinks_per_gpu;
    r->row({in.name, std::to_string(in.num_gpus) + " x " + in.gpu.model, std::int64_t{in.num_gpus},
            in.gpu.model, std::string(topo::fabric_name(in.fabric)),
            in.fabric == topo::IntraFabric::PcieOnly ? std::string("-") : format_rate(nvlink),
            nvlink.value,
            std::to_string(in.num_nics) + " x " + gbps_text(in.nic_bandwidth.value) + "G",
            std::int64_t{in.num_nics}, in.nic_bandwidth.value,
            std::string(topo::transport_name(in.transport)),
            std::string(in.gpudirect_rdma ? "yes" : "no"), in.sagemaker_name.value_or("-"),
            in.sagemaker_name.value_or("")});
  }
  r->end(
      {"\nNVLink/GPU and NICs are per direction and nominal; `topotune topo --instance NAME "
       "--nodes N` shows one cluster.\n"});
}

}  // namespace

CommandRun setup_instances(CLI::App& sub) {
  auto format = std::make_shared<OutputFormat>(OutputFormat::Table);
  add_format_option(sub, *format, {OutputFormat::Table, OutputFormat::Json, OutputFormat::Csv},
                    "Output format");
  sub.footer(
      "Examples:\n"
      "  topotune instances\n"
      "  topotune instances --format json | jq '.[].name'");
  return [format](std::ostream& out) -> Expected<void> {
    std::vector<topo::InstanceSpec> all;
    for (const std::string& name : topo::list_instances()) {
      TT_TRY(topo::InstanceSpec in, topo::find_instance(name));
      all.push_back(std::move(in));
    }
    if (*format == OutputFormat::Json) {
      nlohmann::json doc = nlohmann::json::array();
      for (const topo::InstanceSpec& in : all) doc.push_back(instance_json(in));
      out << doc.dump(2) << "\n";
    } else {
      report(all, *format, out);
    }
    return {};
  };
}

}  // namespace topotune::cli
