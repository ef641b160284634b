// `topotune instances`: the built-in instance catalog as a table, CSV, JSON or the markdown
// block of docs/catalog.md; `--check FILE...` checks instance files as the catalog requires.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "cli/instances_markdown.h"
#include "cli/output_format.h"
#include "cli/reporter.h"
#include "core/quantity_parse.h"
#include "core/string_printf.h"
#include "topology/instance_catalog.h"
#include "topology/instance_check.h"

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

// The table's two free-text columns are as wide as their widest entry (catalog names such as
// Azure's Standard_ND128isr_NDR_GB200_v6 run past any fixed width).
struct InstanceWidths {
  int name = 18;
  int transport = 11;
};

InstanceWidths widths_of(const std::vector<topo::InstanceSpec>& all) {
  InstanceWidths w;
  for (const topo::InstanceSpec& in : all) {
    w.name = std::max(w.name, static_cast<int>(in.name.size()));
    w.transport = std::max(
        w.transport, static_cast<int>(std::string_view(topo::transport_name(in.transport)).size()));
  }
  return w;
}

std::vector<Column> instance_columns(const InstanceWidths& w) {
  return {{"instance", string_printf("%%-%ds", w.name)},
          {"gpus_text", " %-22s", false},
          {"gpus", ""},
          {"gpu_model", ""},
          {"fabric", " %-12s"},
          {"nvlink_text", " %-14s", false},
          {"nvlink_per_gpu_Bps", ""},
          {"nics_text", " %-13s", false},
          {"nics", ""},
          {"nic_bandwidth_Bps", ""},
          {"transport", string_printf(" %%-%ds", w.transport)},
          {"gpudirect_rdma", " %-4s"},
          {"sagemaker_text", " %s", false},
          {"sagemaker_name", ""}};
}

/// The catalog through the table reporter (nominal figures, one line per instance) or the CSV
/// reporter (the same instances as numbers: bytes per second per direction).
void report(const std::vector<topo::InstanceSpec>& all, OutputFormat format, std::ostream& out) {
  const std::unique_ptr<Reporter> r = Reporter::make(format, out);
  const std::vector<Column> columns = instance_columns(widths_of(all));
  // The header through the rows' own fragments, so that it cannot drift from them (cells of
  // CSV/JSON-only columns are not printed).
  const std::string header =
      table_line(columns, {"instance", "GPUs", "", "", "fabric", "NVLink/GPU", "", "NICs", "", "",
                           "transport", "GDR", "SageMaker", ""});
  r->begin({{header}, columns});
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

/// Checks every file (one bad file does not hide the next) and reports each problem as one
/// line, "FILE: field: message", or as JSON. Any problem is an error (exit 2) after the report.
Expected<void> check_files(const std::vector<std::string>& files, OutputFormat format,
                           std::ostream& out) {
  nlohmann::json problems = nlohmann::json::array();
  std::size_t bad_files = 0;
  for (const std::string& file : files) {
    const std::vector<topo::InstanceProblem> found = topo::check_instance_file(file);
    bad_files += found.empty() ? 0 : 1;
    for (const topo::InstanceProblem& p : found) {
      problems.push_back({{"file", file}, {"field", p.field}, {"message", p.message}});
      if (format != OutputFormat::Json)
        out << file << ": " << (p.field.empty() ? "" : p.field + ": ") << p.message << "\n";
    }
  }
  if (format == OutputFormat::Json) {
    out << nlohmann::json{{"files", files.size()}, {"problems", problems}}.dump(2) << "\n";
  } else if (problems.empty()) {
    out << files.size() << " instance file(s) checked, no problems\n";
  }
  if (problems.empty()) return {};
  return fail(Errc::InvalidArgument, std::to_string(problems.size()) + " problem(s) in " +
                                         std::to_string(bad_files) + " of " +
                                         std::to_string(files.size()) + " instance file(s)");
}

}  // namespace

CommandRun setup_instances(CLI::App& sub) {
  struct Options {
    OutputFormat format = OutputFormat::Table;
    std::vector<std::string> check;
  };
  auto o = std::make_shared<Options>();
  add_format_option(
      sub, o->format,
      {OutputFormat::Table, OutputFormat::Json, OutputFormat::Csv, OutputFormat::Markdown},
      "Output format (markdown: the generated block of docs/catalog.md)");
  sub.add_option("--check", o->check,
                 "Check instance files (topotune.instance/1) as the catalog requires: every "
                 "problem on a line of its own, exit 2 if there is any")
      ->expected(1, -1)
      ->type_name("FILE");
  sub.footer(
      "Examples:\n"
      "  topotune instances\n"
      "  topotune instances --format json | jq '.[].name'\n"
      "  topotune instances --check data/instances/*.json\n"
      "  topotune instances --format markdown   # docs/catalog.md's generated block");
  return [o](std::ostream& out) -> Expected<void> {
    if (!o->check.empty()) {
      if (o->format != OutputFormat::Table && o->format != OutputFormat::Json)
        return fail(Errc::InvalidArgument, "--check reports as table or json, not " +
                                               std::string(output_format_name(o->format)));
      return check_files(o->check, o->format, out);
    }
    std::vector<topo::InstanceSpec> all;
    for (const std::string& name : topo::list_instances()) {
      TT_TRY(topo::InstanceSpec in, topo::find_instance(name));
      all.push_back(std::move(in));
    }
    if (o->format == OutputFormat::Json) {
      nlohmann::json doc = nlohmann::json::array();
      for (const topo::InstanceSpec& in : all) doc.push_back(instance_json(in));
      out << doc.dump(2) << "\n";
    } else if (o->format == OutputFormat::Markdown) {
      write_catalog_markdown(all, out);
    } else {
      report(all, o->format, out);
    }
    return {};
  };
}

}  // namespace topotune::cli
