// topotune simulate: run one algorithm's schedule through the contention-aware flow simulator
// on a cluster (docs/simulator.md) and report time, algbw/busbw and the bottleneck links.
//
//   topotune simulate --instance p4d.24xlarge --nodes 4 --algo ring --size 1G
//   topotune simulate --cluster my.json --algo hierarchical --inner rhd --size 256M --format json
//   topotune simulate --instance p5.48xlarge --nodes 2 --algo tree --size 64M --trace trace.json
//   topotune simulate --instance p4d.24xlarge --nodes 2 --algo ring --size 1G --calibration c.json
#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>
#include <string>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "cli/algorithm_flags.h"
#include "cli/chrome_trace.h"
#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "cli/nccl_common.h"
#include "cli/output_format.h"
#include "cli/path_flag.h"
#include "cli/simulate_report.h"
#include "core/enum_names.h"
#include "core/file_output.h"
#include "core/quantity_parse.h"
#include "simulator/simulator.h"
#include "timing/collective_simulation.h"
#include "topology/cluster_spec.h"
#include "topology/topology.h"

namespace topotune::cli {
namespace {

struct SimulateArgs {
  ClusterFlags cluster;
  std::string algo;
  std::string size;
  std::string dtype = "fp32";
  std::string collective = "allreduce";
  AlgorithmFlags algorithm;
  std::string reduction = "serial";
  bool no_flow_caps = false;
  OutputFormat format = OutputFormat::Table;
  std::string trace;
  std::string calibration;
};

/// --reduction's names, both directions.
constexpr auto kReductionNames = enum_names<sim::ReductionModel>({
    {sim::ReductionModel::Serial, "serial"},
    {sim::ReductionModel::Overlapped, "overlapped"},
    {sim::ReductionModel::Ignore, "none"},
});

Expected<sim::ReductionModel> parse_reduction(const std::string& name) {
  if (const auto model = kReductionNames.find(name)) return *model;
  return fail(
      Errc::InvalidArgument,
      "--reduction must be " + kReductionNames.names_text(", ", " or ") + ", got '" + name + "'");
}

Expected<sim::SimOptions> sim_options_of(const SimulateArgs& a) {
  sim::SimOptions o;
  TT_TRY(o.reduction, parse_reduction(a.reduction));
  o.apply_flow_caps = !a.no_flow_caps;
  o.record_transfers = !a.trace.empty();
  TT_TRY(o.memory_limit, simulation_memory_limit());
  return o;
}

Expected<void> run_simulate(const SimulateArgs& a, std::ostream& out) {
  if (!a.trace.empty()) TT_TRY_VOID(check_output_path(a.trace).context("--trace"));  // before work
  TT_TRY(const sim::SimOptions sim_options, sim_options_of(a));
  sched::CollectiveSpec spec;
  TT_TRY(spec.collective, sched::parse_collective(a.collective));
  TT_TRY(spec.dtype, sched::parse_dtype(a.dtype));
  TT_TRY(spec.bytes, parse_size(a.size).context("--size"));
  TT_TRY(algo::AlgorithmOptions opts, algorithm_options_of(a.algorithm));
  TT_TRY(opts.memory, simulation_budget());
  TT_TRY(auto algorithm, algo::make_algorithm(a.algo, opts, spec.collective));
  TT_TRY(topo::ClusterSpec cluster_spec, resolve_cluster(a.cluster));
  TT_TRY_VOID(tune::apply_calibration_file(a.calibration, cluster_spec).context("--calibration"));
  TT_TRY(const topo::Topology topology, topo::build_topology(cluster_spec));
  TT_TRY(const algo::RankLayout layout, algo::layout_from_topology(topology, opts.channels));
  spec.ranks = layout.ranks();
  TT_TRY_VOID(spec.check());
  // A trace shows every transfer: it needs the full schedule.
  TT_TRY(
      const tune::CollectiveSimulation sim,
      tune::simulate_collective(*algorithm, spec, layout, topology, sim_options,
                                a.trace.empty() ? tune::Generation::Auto : tune::Generation::Full));
  const std::string cluster = cluster_spec.instance.name + " x " +
                              std::to_string(cluster_spec.hosts) + " (" +
                              topo::placement_name(cluster_spec.placement) + " placement" +
                              (a.calibration.empty() ? "" : ", calibration " + a.calibration) + ")";
  if (!a.trace.empty()) {
    TT_TRY(const std::string trace, chrome_trace_json(*sim.schedule, sim.result, topology));
    TT_TRY_VOID(write_file_atomically(a.trace, trace).context("--trace"));
  }
  return print_simulate_report(a.format, {sim, sim.result, topology, cluster}, out);
}

}  // namespace

CommandRun setup_simulate(CLI::App& sub) {
  auto a = std::make_shared<SimulateArgs>();
  add_cluster_flags(sub, a->cluster);
  sub.add_option("--algo", a->algo, "algorithm: " + algo::algorithm_names_text())->required();
  sub.add_option("--size", a->size, "buffer size: 8, 64K, 256M, 1G (powers of 1024)")->required();
  sub.add_option("--dtype", a->dtype, "fp32 (default), fp16, bf16");
  sub.add_option("--collective", a->collective,
                 "allreduce (default), reduce_scatter, allgather, broadcast");
  add_algorithm_flags(sub, a->algorithm);
  sub.add_option("--reduction", a->reduction,
                 "reduction cost: serial (default, after delivery), overlapped, none");
  sub.add_flag("--no-flow-caps", a->no_flow_caps, "ignore per-flow rate caps (AWS TCP)");
  add_format_option(sub, a->format, {OutputFormat::Table, OutputFormat::Json, OutputFormat::Csv},
                    "table (default), json, or csv (every link that carried traffic)");
  sub.add_option("--trace", a->trace, "write a Chrome/Perfetto trace of the transfers to FILE")
      ->check(non_empty_path());
  sub.add_option("--calibration", a->calibration,
                 "calibration file from `topotune calibrate`: its physical link parameters "
                 "replace the link-class defaults (docs/calibration.md)")
      ->check(non_empty_path());
  sub.footer(
      "Examples:\n"
      "  topotune simulate --instance p4d.24xlarge --nodes 4 --algo ring --size 1G\n"
      "  topotune simulate --instance p4d.24xlarge --nodes 4 --algo 'hierarchical(rhd)' "
      "--size 256M --format json\n"
      "  topotune simulate --cluster my.json --algo dbtree --size 64M --trace trace.json");
  return [a](std::ostream& out) { return run_simulate(*a, out); };
}

}  // namespace topotune::cli
