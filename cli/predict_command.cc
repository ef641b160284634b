// topotune predict: what NCCL does for a collective on a cluster, size by size; or, with a
// schedule --algo, what that algorithm takes (timing/schedule_timing.h). One result model,
// rendered by the table and CSV reporters (cli/reporter.h) or as its JSON document.

#include <CLI/CLI.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "algorithms/registry.h"
#include "cli/algorithm_flags.h"
#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "cli/nccl_common.h"
#include "cli/output_format.h"
#include "cli/path_flag.h"
#include "cli/predict_report.h"
#include "core/file_output.h"
#include "core/quantity_parse.h"
#include "planning/predicted_tuner_rules.h"
#include "timing/model_timers.h"
#include "timing/schedule_timing.h"

namespace topotune::cli {
namespace {

struct PredictArgs {
  ClusterFlags cluster;
  std::string collective = "allreduce";
  std::string algo = "nccl";
  std::string sizes;  ///< empty: 8:16G for the table, 1K:16G for --tuner-rules
  std::string nccl_version;
  std::string nccl_algo;
  std::string nccl_proto;
  int nccl_channels = 0;  ///< from --algo nccl:X/chN: NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS
  std::string calibration;
  OutputFormat format = OutputFormat::Table;
  int gpus_per_thread = 1;
  bool explain = false;
  bool simulate = false;
  std::string tuner_rules;  ///< --tuner-rules FILE
};

/// predict's default sweep, and the fixed sweep a rules file samples unless --sizes is given.
constexpr const char* kDefaultSizes = "8:16G";
constexpr const char* kDefaultRulesSizes = "1K:16G";

/// What NCCL runs in predict_nccl: the cluster, the model's parameters, the system with its
/// fabric and NCCL's restrictions.
struct NcclSetup {
  topo::ClusterSpec spec;
  algo::NcclModelParams params;
  algo::NcclSystem sys;
  algo::NcclOptions opts;  ///< with --algo's /chN as NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS
};

/// The cluster every prediction runs on (--instance/--nodes/--placement or --cluster), with
/// the model's physical link parameters (--calibration's, or the fitted defaults).
Expected<topo::ClusterSpec> predict_cluster(const PredictArgs& a) {
  TT_TRY(topo::ClusterSpec spec, resolve_cluster(a.cluster));
  TT_TRY_VOID(tune::apply_calibration_file(a.calibration, spec).context("--calibration"));
  return spec;
}

/// A schedule-based algorithm of the registry (timing/schedule_timing.h).
Expected<PredictReport> predict_schedule(const PredictArgs& a, sched::Collective coll,
                                         const std::vector<Bytes>& sizes) {
  TT_TRY(const topo::ClusterSpec spec, predict_cluster(a));
  TT_TRY(const algo::NcclModelParams model, tune::load_nccl_model(a.calibration));
  tune::ScheduleTimingLimits limits;
  if (a.simulate) {
    TT_TRY(limits.schedule, simulation_budget());
    TT_TRY(limits.simulator, simulation_memory_limit());
  }
  TT_TRY(
      const tune::ScheduleTimes times,
      tune::schedule_times(
          spec, model, a.algo, coll, sizes,
          a.simulate ? tune::ScheduleTiming::Simulated : tune::ScheduleTiming::ClosedForm, limits));
  PredictReport r;
  r.instance = a.cluster.cluster_file.empty() ? a.cluster.instance : a.cluster.cluster_file;
  r.nodes = times.nodes;
  r.ranks = times.ranks;
  r.collective = coll;
  for (const tune::ScheduleTimeRow& row : times.rows) {
    r.rows.push_back({row.bytes.value, row.time.us(), row.algbw_GBps, row.busbw_GBps,
                      times.algorithm, a.simulate ? "simulated" : "closed-form", std::nullopt});
  }
  r.title.push_back(
      "# topotune predict: " + r.instance + " x " + std::to_string(r.nodes) + " node(s), " +
      std::to_string(r.ranks) + " ranks, " + sched::collective_name(coll) + ", " + a.algo +
      (a.simulate ? " (flow simulation with contention on the topology, plus NCCL's software "
                    "costs)\n"
                  : " (closed-form alpha-beta-gamma time on the topology's routes, with NCCL's "
                    "software costs)\n"));
  r.title.push_back(
      "#       size         count      type       time   algbw   busbw  algorithm  protocol\n");
  return r;
}

Expected<NcclSetup> nccl_setup(const PredictArgs& a) {
  TT_TRY(topo::ClusterSpec spec, predict_cluster(a));
  TT_TRY(algo::NcclModelParams params, tune::load_nccl_model(a.calibration));
  // The fabric (placement, spine, per-flow caps) from the flow simulator on the topology.
  TT_TRY(algo::NcclSystem sys, tune::nccl_system_on_fabric(spec, params));
  sys.gpus_per_thread = a.gpus_per_thread;
  TT_TRY(algo::NcclOptions opts, make_nccl_options(a.nccl_version, a.nccl_algo, a.nccl_proto));
  opts.min_channels = opts.max_channels = a.nccl_channels;
  return NcclSetup{std::move(spec), std::move(params), std::move(sys), std::move(opts)};
}

Expected<PredictReport> predict_nccl(const PredictArgs& a, sched::Collective coll,
                                     const std::vector<Bytes>& sizes) {
  TT_TRY(const NcclSetup setup, nccl_setup(a));
  const topo::ClusterSpec& spec = setup.spec;
  const algo::NcclSystem& sys = setup.sys;
  const algo::NcclOptions& opts = setup.opts;
  const algo::NcclPredictor predictor(sys, setup.params, opts);
  PredictReport r;
  r.instance = sys.instance;
  r.nodes = sys.nodes;
  r.ranks = sys.ranks();
  r.collective = coll;
  r.title = {"# topotune predict: " + sys.instance + " x " + std::to_string(sys.nodes) +
                 " node(s), " + topo::placement_name(spec.placement) + " placement, " +
                 std::to_string(sys.ranks()) + " ranks, " + sched::collective_name(coll) +
                 ", NCCL " + opts.version.str() + "\n",
             "#       size         count      type       time   algbw   busbw  algorithm  "
             "protocol\n",
             "#        (B)    (elements)                 (us)  (GB/s)  (GB/s)\n"};
  for (const Bytes b : sizes) {
    // The same contract as every other command's collective (docs/limits.md): at most 1 TiB,
    // whole fp32 elements, as the table's count column reports them.
    sched::CollectiveSpec spec_of_size;
    spec_of_size.collective = coll;
    spec_of_size.ranks = sys.ranks();
    spec_of_size.bytes = b;
    TT_TRY_VOID(spec_of_size.check().context("--sizes"));
    TT_TRY(algo::NcclPrediction p, predictor.predict(coll, b, a.explain));
    PredictRow row{b.value,
                   p.chosen.time.us(),
                   p.algbw_GBps,
                   p.busbw_GBps,
                   algo::nccl_algo_name(p.chosen.algo),
                   algo::nccl_proto_name(p.chosen.proto),
                   std::nullopt};
    if (a.explain) row.explained = std::move(p);
    r.rows.push_back(std::move(row));
  }
  return r;
}

/// NCCL's own algorithms by their names (nccl:default, nccl:ring, nccl:tree, /chN): the
/// arguments of the NCCL predictor with NCCL_ALGO and the channel count they stand for;
/// nullopt for one of topotune's schedules.
Expected<std::optional<PredictArgs>> nccl_args(const PredictArgs& a) {
  if (auto choice = algo::parse_algorithm_choice(a.algo); choice && choice->is_nccl()) {
    PredictArgs n = a;
    if (choice->kind != algo::AlgoKind::NcclDefault) {
      if (!a.nccl_algo.empty()) {
        return fail(Errc::InvalidArgument, "--algo " + a.algo +
                                               " already sets NCCL's algorithm: "
                                               "drop --nccl-algo");
      }
      n.nccl_algo = choice->kind == algo::AlgoKind::NcclRing ? "ring" : "tree";
    }
    n.nccl_channels = choice->channels;
    return std::optional<PredictArgs>(std::move(n));
  }
  if (a.algo != "nccl") return std::optional<PredictArgs>();
  return std::optional<PredictArgs>(a);
}

Expected<PredictReport> predict(const PredictArgs& a) {
  TT_TRY(const sched::Collective coll, sched::parse_collective(a.collective));
  TT_TRY(const std::vector<Bytes> sizes,
         parse_size_list(a.sizes.empty() ? kDefaultSizes : a.sizes));
  TT_TRY(const std::optional<PredictArgs> n, nccl_args(a));
  if (!n) return predict_schedule(a, coll, sizes);
  return predict_nccl(*n, coll, sizes);
}

/// What NCCL is restricted to, as the rules file's header states it ("" when nothing is).
std::string nccl_restrictions(const PredictArgs& n) {
  std::string r;
  const auto add = [&r](const std::string& s) { r += (r.empty() ? "" : ", ") + s; };
  if (!n.nccl_algo.empty()) add("NCCL_ALGO=" + n.nccl_algo);
  if (!n.nccl_proto.empty()) add("NCCL_PROTO=" + n.nccl_proto);
  if (n.nccl_channels > 0) {
    add("NCCL_MIN_NCHANNELS=NCCL_MAX_NCHANNELS=" + std::to_string(n.nccl_channels));
  }
  return r;
}

/// --tuner-rules: the plugin's rules for the cluster's world communicator
/// (planning/predicted_tuner_rules.h), sampled at --sizes or 1 KiB .. 16 GiB. `n` holds
/// nccl_args' translation of --algo.
Expected<std::string> tuner_rules_text(const PredictArgs& n) {
  TT_TRY(const std::vector<Bytes> sizes,
         parse_size_list(n.sizes.empty() ? kDefaultRulesSizes : n.sizes));
  TT_TRY(const NcclSetup setup, nccl_setup(n));
  TT_TRY(const std::vector<tune::CollectiveTunerRules> rules,
         tune::predict_tuner_rules(setup.sys, setup.params, setup.opts, sizes));
  tune::TunerRulesContext ctx;
  ctx.cluster = setup.sys.instance + " x " + std::to_string(setup.sys.nodes) + " node(s), " +
                topo::placement_name(setup.spec.placement) + " placement";
  ctx.nccl = algo::nccl_release_name(setup.opts.version.code());
  ctx.calibration = n.calibration;
  ctx.restrictions = nccl_restrictions(n);
  ctx.nodes = setup.sys.nodes;
  ctx.ranks = setup.sys.ranks();
  return tune::predicted_tuner_rules_file(rules, ctx);
}

Expected<void> run_predict(const PredictArgs& a, std::ostream& out) {
  std::optional<PredictArgs> rules_args;
  if (!a.tuner_rules.empty()) {  // refused before any work, as every writer's path
    TT_TRY_VOID(check_output_path(a.tuner_rules).context("--tuner-rules"));
    TT_TRY(rules_args, nccl_args(a));
    if (!rules_args) {
      return fail(Errc::InvalidArgument,
                  "--tuner-rules compares NCCL's own choices: it needs --algo nccl (or "
                  "nccl:ring, nccl:tree, /chN), not " +
                      a.algo);
    }
  }
  TT_TRY(const PredictReport r, predict(a));
  if (rules_args) {
    TT_TRY(const std::string text, tuner_rules_text(*rules_args).context("--tuner-rules"));
    TT_TRY_VOID(write_file_atomically(a.tuner_rules, text).context("--tuner-rules"));
  }
  print_predict_report(r, a.format, out);
  return {};
}
}  // namespace

CommandRun setup_predict(CLI::App& sub) {
  auto a = std::make_shared<PredictArgs>();
  add_cluster_flags(sub, a->cluster);
  sub.add_option("--collective", a->collective, kCollectiveFlagHelp);
  sub.add_option("--algo", a->algo,
                 "nccl:default (NCCL's model, default; also nccl:ring, nccl:tree, /chN) or one of "
                 "topotune's schedules (closed-form time): " +
                     algo::algorithm_names_text());
  sub.add_option("--sizes", a->sizes,
                 "A:B (A, 2A, ... B) or a list 1M,64M,1G (default 8:16G; 1K:16G for the "
                 "--tuner-rules file)");
  sub.add_option("--nccl-version", a->nccl_version, "NCCL release, e.g. 2.23.4 (default: latest)");
  sub.add_option("--nccl-algo", a->nccl_algo,
                 "restrict NCCL's algorithms as NCCL_ALGO does, e.g. ring");
  sub.add_option("--nccl-proto", a->nccl_proto,
                 "restrict protocols as NCCL_PROTO does, e.g. ^LL128");
  sub.add_option("--calibration", a->calibration,
                 "parameters from `topotune calibrate` (NCCL's model; with a schedule --algo, "
                 "the physical link parameters, docs/calibration.md)")
      ->check(non_empty_path());
  sub.add_option("--gpus-per-thread", a->gpus_per_thread,
                 "GPUs one thread launches (nccl-tests -g)")
      ->check(CLI::PositiveNumber);
  add_format_option(sub, a->format, {OutputFormat::Table, OutputFormat::Json, OutputFormat::Csv},
                    "table | json | csv (the rows only)");
  sub.add_flag("--simulate", a->simulate,
               "schedule algorithms: run the flow simulator instead of the closed form");
  sub.add_flag("--explain", a->explain, "show every candidate's time and bottleneck");
  sub.add_option("--tuner-rules", a->tuner_rules,
                 "also write the NCCL tuner plugin's rules for this cluster to FILE: allreduce, "
                 "allgather, reduce-scatter, where topotune's pick beats NCCL's beyond the "
                 "model's error (docs/tuner-plugin.md)")
      ->check(non_empty_path());
  sub.footer(
      "Examples:\n"
      "  topotune predict --instance p4d.24xlarge --nodes 2\n"
      "  topotune predict --instance p4d.24xlarge --nodes 2 --algo nccl:ring --sizes 1M,64M\n"
      "  topotune predict --instance p4d.24xlarge --nodes 2 --algo 'hierarchical(rhd)' "
      "--sizes 64M --simulate\n"
      "  topotune predict --instance p5.48xlarge --nodes 4 --tuner-rules nccl_tuner_rules.txt");
  return [a](std::ostream& out) { return run_predict(*a, out); };
}

}  // namespace topotune::cli
