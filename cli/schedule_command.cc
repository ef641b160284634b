// topotune schedule: generate one algorithm's schedule and print it (JSON, docs/schedule.md)
// or its summary (steps, transfers, bytes per rank, closed-form time) as a table or CSV.
//
//   topotune schedule --algo ring --ranks 8 --size 64M
//   topotune schedule --algo hierarchical --inner tree --instance p4d.24xlarge --nodes 4 --size 1G
//   topotune schedule --algo ring --instance p5.48xlarge --nodes 8 --placement spread --size 1G
//   topotune schedule --algo ring --cluster my.json --size 256M
#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "algorithms/cost_params.h"
#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "algorithms/schedule/interpreter.h"
#include "algorithms/schedule/schedule_json.h"
#include "algorithms/schedule/schedule_stats.h"
#include "cli/algorithm_flags.h"
#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "cli/output_format.h"
#include "cli/schedule_report.h"
#include "core/quantity_parse.h"
#include "core/string_printf.h"
#include "topology/cluster_spec.h"
#include "topology/model_defaults.h"
#include "topology/topology.h"

namespace topotune::cli {
namespace {

struct ScheduleArgs {
  std::string algo;
  std::optional<int> ranks;          ///< --ranks: the generic cluster
  std::optional<int> gpus_per_node;  ///< its hosts' size (default 1)
  ClusterFlags cluster;              ///< or a catalog or file cluster, by the shared rule
  std::string size;
  std::string dtype = "fp32";
  std::string collective = "allreduce";
  AlgorithmFlags algorithm;
  OutputFormat format = OutputFormat::Table;
  bool verify = false;
};

// Largest schedule the table summary proves with the interpreter unless --verify is given
// (a ring of 500k transfers takes a few seconds, a hierarchical one of 270k about 20 s).
constexpr std::size_t kVerifyLimit = 100'000;

// The generic cluster of `--ranks`: its figures are topology/model_defaults.h's assumptions,
// stated in the summary because it prints times on it.
algo::CostParams generic_params() {
  algo::CostParams p;
  p.intra = algo::HopCost{microseconds(topo::kGenericNvSwitchLatencyUs),
                          gbyte_per_sec(topo::kGenericNvSwitchGBps)};
  p.inter =
      algo::HopCost{microseconds(topo::kGenericNicLatencyUs), gbit_per_sec(topo::kGenericNicGbps)};
  p.gpu_to_cpu = algo::HopCost{microseconds(topo::kGenericPcieLatencyUs),
                               gbyte_per_sec(topo::kGenericPcieGBps)};
  p.net_to_cpu = algo::HopCost{microseconds(topo::kGenericNetToCpuLatencyUs),
                               gbit_per_sec(topo::kGenericNicGbps)};
  p.gpu_reduce = gbyte_per_sec(topo::kGenericGpuReduceGBps);
  p.cpu_reduce = gbyte_per_sec(topo::kGenericCpuReduceGBps);
  return p;
}

std::string generic_description() {
  return string_printf(
      "generic cluster: NVSwitch %g GB/s %g us, one %g Gb/s NIC per GPU %g us, GPU reduce %g "
      "GB/s, CPU reduce %g GB/s, PCIe %g GB/s",
      topo::kGenericNvSwitchGBps, topo::kGenericNvSwitchLatencyUs, topo::kGenericNicGbps,
      topo::kGenericNicLatencyUs, topo::kGenericGpuReduceGBps, topo::kGenericCpuReduceGBps,
      topo::kGenericPcieGBps);
}

struct Cluster {
  algo::RankLayout layout;
  algo::CostParams params;
  std::string description;
};

// --ranks N is schedule's own alternative to the shared cluster flags (cluster_flags.h),
// which keep their rule, messages and ranges here as in every command.
Expected<Cluster> cluster_of(const ScheduleArgs& a, int channels) {
  if (a.ranks && any_cluster_flag(a.cluster)) {
    return fail(Errc::InvalidArgument,
                "give either --ranks N or --instance NAME --nodes N (or --cluster FILE), not both");
  }
  if (a.ranks) {
    if (*a.ranks < 1)
      return fail(Errc::InvalidArgument,
                  "--ranks must be at least 1, got " + std::to_string(*a.ranks));
    TT_TRY(algo::RankLayout layout, algo::flat_layout(*a.ranks, a.gpus_per_node.value_or(1)));
    return Cluster{std::move(layout), generic_params(), generic_description()};
  }
  if (!any_cluster_flag(a.cluster)) {
    return fail(Errc::InvalidArgument,
                "give either --ranks N or --instance NAME --nodes N (or --cluster FILE)");
  }
  if (a.gpus_per_node) {
    return fail(Errc::InvalidArgument,
                "--gpus-per-node would be ignored without --ranks (the cluster says it)");
  }
  TT_TRY(const topo::ClusterSpec spec, resolve_cluster(a.cluster));
  TT_TRY(topo::Topology t, topo::build_topology(spec));
  TT_TRY(algo::RankLayout layout, algo::layout_from_topology(t, channels));
  const std::string placement =
      spec.placement == topo::Placement::Cluster
          ? ""
          : std::string(topo::placement_name(spec.placement)) + " placement, ";
  return Cluster{std::move(layout), algo::cost_params_from_topology(t),
                 spec.instance.name + " x " + std::to_string(spec.hosts) + " (" + placement +
                     "routes of the topology)"};
}

Expected<void> run_schedule(const ScheduleArgs& a, std::ostream& out) {
  sched::CollectiveSpec spec;
  TT_TRY(spec.collective, sched::parse_collective(a.collective));
  TT_TRY(spec.dtype, sched::parse_dtype(a.dtype));
  TT_TRY(spec.bytes, parse_size(a.size).context("--size"));
  TT_TRY(const algo::AlgorithmOptions opts, algorithm_options_of(a.algorithm));
  TT_TRY(auto algorithm, algo::make_algorithm(a.algo, opts, spec.collective));
  TT_TRY(Cluster cluster, cluster_of(a, opts.channels));
  spec.ranks = cluster.layout.ranks();
  TT_TRY_VOID(spec.check());
  TT_TRY(const sched::Schedule s, algorithm->generate(spec, cluster.layout));
  if (a.format == OutputFormat::Json) {
    sched::ScheduleJson::write(s, out);
    return {};
  }
  ScheduleSummary summary;
  summary.algorithm = s.algorithm();
  summary.spec = spec;
  summary.hosts = cluster.layout.hosts;
  summary.gpus_per_host = cluster.layout.gpus_per_host;
  summary.stats = sched::schedule_stats(s);
  summary.extra_endpoints = s.num_endpoints() - s.num_ranks();
  if (Expected<Seconds> t = algorithm->closed_form(spec, cluster.layout, cluster.params)) {
    summary.closed_form = *t;
  } else {
    summary.closed_form_unavailable = t.error().message;
  }
  summary.cluster = cluster.description;
  summary.verify_limit = kVerifyLimit;
  summary.verified = s.size() <= kVerifyLimit || a.verify;
  if (summary.verified) {
    TT_TRY_VOID(sched::verify(s).context("the generated schedule is wrong (a bug)"));
  }
  print_schedule_summary(summary, a.format, out);
  return {};
}

}  // namespace

CommandRun setup_schedule(CLI::App& sub) {
  auto a = std::make_shared<ScheduleArgs>();
  sub.add_option("--algo", a->algo, "algorithm: " + algo::algorithm_names_text())->required();
  sub.add_option_function<int>(
      "--ranks", [a](int n) { a->ranks = n; },
      "ranks of a generic cluster (with --gpus-per-node), instead of --instance or --cluster");
  sub.add_option_function<int>(
      "--gpus-per-node", [a](int n) { a->gpus_per_node = n; },
      "GPUs per host of the generic cluster (default 1)");
  add_cluster_flags(sub, a->cluster);
  sub.add_option("--size", a->size, "buffer size: 8, 64K, 256M, 4G (powers of 1024)")->required();
  sub.add_option("--dtype", a->dtype, "fp32 (default), fp16, bf16");
  sub.add_option("--collective", a->collective,
                 "allreduce (default), reduce_scatter, allgather, broadcast");
  add_algorithm_flags(sub, a->algorithm);
  add_format_option(sub, a->format, {OutputFormat::Table, OutputFormat::Json, OutputFormat::Csv},
                    "table (default), json (the schedule, docs/schedule.md) or csv (the summary "
                    "as one row)");
  sub.add_flag("--verify", a->verify,
               "prove the schedule with the symbolic interpreter even when large");
  sub.footer(
      "Examples:\n"
      "  topotune schedule --algo ring --ranks 8 --size 64M\n"
      "  topotune schedule --algo 'hierarchical(dbtree)' --instance p4d.24xlarge --nodes 4 "
      "--size 1G\n"
      "  topotune schedule --algo 'ps(k=2)' --instance p4d.24xlarge --nodes 2 --size 64M "
      "--format json\n"
      "  topotune schedule --algo ring --cluster my.json --size 256M");
  return [a](std::ostream& out) { return run_schedule(*a, out); };
}

}  // namespace topotune::cli
