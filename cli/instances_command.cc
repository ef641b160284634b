// `topotune instances`: the built-in instance catalog as a table or JSON.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/output_format.h"
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

std::string table(const std::vector<topo::InstanceSpec>& all) {
  std::ostringstream o;
  std::string line;
  line = string_printf("%-18s %-22s %-12s %-14s %-13s %-11s %-4s %s\n", "instance", "GPUs",
                       "fabric", "NVLink/GPU", "NICs", "transport", "GDR", "SageMaker");
  o << line;
  for (const topo::InstanceSpec& in : all) {
    const std::string gpus = std::to_string(in.num_gpus) + " x " + in.gpu.model;
    const std::string nvlink = in.fabric == topo::IntraFabric::PcieOnly
                                   ? "-"
                                   : format_rate(in.nvlink_bandwidth_per_link * in.nvlinks_per_gpu);
    const std::string nics =
        std::to_string(in.num_nics) + " x " + gbps_text(in.nic_bandwidth.value) + "G";
    line = string_printf("%-18s %-22s %-12s %-14s %-13s %-11s %-4s %s\n", in.name.c_str(),
                         gpus.c_str(), topo::fabric_name(in.fabric), nvlink.c_str(), nics.c_str(),
                         topo::transport_name(in.transport), in.gpudirect_rdma ? "yes" : "no",
                         in.sagemaker_name ? in.sagemaker_name->c_str() : "-");
    o << line;
  }
  o << "\nNVLink/GPU and NICs are per direction and nominal; `topotune topo --instance NAME "
       "--nodes N` shows one cluster.\n";
  return o.str();
}

}  // namespace

CommandRun setup_instances(CLI::App& sub) {
  auto format = std::make_shared<OutputFormat>(OutputFormat::Table);
  add_format_option(sub, *format, {OutputFormat::Table, OutputFormat::Json}, "Output format");
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
      out << table(all);
    }
    return {};
  };
}

}  // namespace topotune::cli
