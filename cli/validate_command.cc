// topotune validate: predicted vs measured (nccl-tests log or measurement JSON), size by size;
// the comparison is calibration/validation.h's, the health verdict calibration/log_health.h's.

#include <CLI/CLI.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "calibration/calibration.h"
#include "calibration/log_health.h"
#include "calibration/validation.h"
#include "cli/algorithm_flags.h"
#include "cli/commands.h"
#include "cli/nccl_common.h"
#include "cli/output_format.h"
#include "cli/path_flag.h"
#include "cli/validate_report.h"
#include "core/file_output.h"

namespace topotune::cli {
namespace {

struct ValidateArgs {
  OutputFormat format = OutputFormat::Table;
  std::string nccl_tests;
  std::string measured;
  std::string instance;
  std::optional<int> nodes;
  std::string cluster;
  std::string nccl_version;
  std::string nccl_algo;
  std::string nccl_proto;
  std::string collective;  ///< "" = the log's own
  std::string calibration;
  std::string plot;
  std::optional<int> gpus_per_thread;
};

Expected<void> run_validate(const ValidateArgs& a, std::ostream& out) {
  if (!a.plot.empty()) {  // before any work: a bad --plot must not come after the report
    TT_TRY_VOID(plot_format(a.plot));
    TT_TRY_VOID(check_output_path(a.plot).context("--plot"));
  }
  if (a.gpus_per_thread && (*a.gpus_per_thread < 1 || *a.gpus_per_thread > 1024)) {
    return fail(Errc::InvalidArgument, "--gpus-per-thread must be in [1, 1024]");
  }
  TT_TRY(const std::optional<sched::Collective> collective, parse_collective_flag(a.collective));
  TT_TRY(const rt::Measurement m, load_measurement(a.nccl_tests, a.measured, collective));
  TT_TRY(algo::NcclSystem probe, resolve_nccl_system(a.instance, 1, a.cluster));
  TT_TRY(const int nodes, nodes_of(m, a.nodes, probe.gpus_per_node));
  TT_TRY(topo::ClusterSpec cluster, resolve_cluster_spec(a.instance, nodes, a.cluster));
  TT_TRY(algo::NcclSystem sys, algo::nccl_system_from_cluster(cluster));
  sys.gpus_per_thread = a.gpus_per_thread.value_or(m.gpus_per_thread.value_or(1));
  if (sys.ranks() != m.ranks) {
    return fail(Errc::InvalidArgument, "the log has " + std::to_string(m.ranks) + " ranks but " +
                                           sys.instance + " x " + std::to_string(sys.nodes) +
                                           " has " + std::to_string(sys.ranks()));
  }
  const std::string version =
      !a.nccl_version.empty() ? a.nccl_version : m.nccl_version.value_or("");
  TT_TRY(const algo::NcclOptions opts, make_nccl_options(version, a.nccl_algo, a.nccl_proto));
  TT_TRY(const algo::NcclModelParams params, tune::load_nccl_model(a.calibration));
  TT_TRY_VOID(tune::apply_calibration_file(a.calibration, cluster).context("--calibration"));
  const algo::NcclPredictor predictor(sys, params, opts);
  tune::RowPredictor models(predictor, cluster, m.channels.value_or(1), m.chunks.value_or(1),
                            simulation_budget);
  std::vector<std::string> unmodelled;
  TT_TRY(std::vector<tune::ValidationRow> rows, tune::compare_run(m, models, &unmodelled));
  ValidateReport report;
  report.rows = std::move(rows);
  for (const std::string& why : unmodelled) report.warnings.push_back(why);
  if (!a.plot.empty()) {  // the plot is written before the report is printed
    TT_TRY_VOID(
        plot_validation(report.rows, a.plot, sys.instance + " x " + std::to_string(sys.nodes))
            .context("--plot"));
    report.plot = a.plot;
  }
  report.instance = sys.instance;
  report.nodes = sys.nodes;
  report.ranks = m.ranks;
  report.collective = m.collective;
  report.nccl_version = opts.version.str();
  for (std::string& w :
       tune::log_contradictions({m.gpu_names, m.nodes}, cluster, a.nodes.has_value())) {
    report.warnings.push_back(std::move(w));
  }
  if (!a.nccl_tests.empty() && !opts.version.known) {
    report.warnings.push_back(
        "the log does not print its NCCL version: predicted as the latest modeled release, " +
        algo::nccl_release_name(opts.version.code()) +
        "; releases choose different algorithms (docs/nccl-model.md, Versions), so give "
        "--nccl-version when you know the image's");
  }
  if (!a.nccl_tests.empty()) {
    std::vector<tune::HealthPoint> points;
    for (const tune::ValidationRow& r : report.rows)
      points.push_back({r.bytes, r.measured_busbw, r.predicted_busbw});
    report.verdict = tune::judge_health(points, sys).text;
  }
  print_validate_report(report, a.format, out);
  return {};
}

}  // namespace

CommandRun setup_validate(CLI::App& sub) {
  auto a = std::make_shared<ValidateArgs>();
  sub.add_option("--nccl-tests", a->nccl_tests, "nccl-tests output (all_reduce_perf ...)")
      ->check(non_empty_path());
  sub.add_option("--measured", a->measured, "measurement JSON (topotune measure)")
      ->check(non_empty_path());
  sub.add_option("--instance", a->instance, "catalog instance the run used");
  sub.add_option("--nodes", a->nodes, "nodes of the run (default: from the log)");
  sub.add_option("--cluster", a->cluster, "cluster JSON file instead of --instance")
      ->check(non_empty_path());
  sub.add_option("--nccl-version", a->nccl_version, "NCCL release (default: from the log)");
  sub.add_option("--nccl-algo", a->nccl_algo, "NCCL_ALGO the run used, e.g. ring");
  sub.add_option("--nccl-proto", a->nccl_proto, "NCCL_PROTO the run used");
  sub.add_option("--collective", a->collective,
                 std::string(kCollectiveFlagHelp) + " (default: from the log)");
  sub.add_option("--calibration", a->calibration, "parameters from `topotune calibrate`")
      ->check(non_empty_path());
  sub.add_option("--gpus-per-thread", a->gpus_per_thread, "nccl-tests -g (default: from the log)");
  sub.add_option("--plot", a->plot, "write measured and predicted busbw to FILE.svg or .png")
      ->check(non_empty_path());
  add_format_option(sub, a->format, {OutputFormat::Table, OutputFormat::Json, OutputFormat::Csv},
                    "table, json (rows, summaries, verdict) or csv (the rows only)");
  sub.footer(
      "Examples:\n"
      "  topotune validate --nccl-tests all_reduce_perf.log --instance p4d.24xlarge --nodes 2\n"
      "  topotune validate --measured measured.json --cluster cluster.json");
  return [a](std::ostream& out) { return run_validate(*a, out); };
}

}  // namespace topotune::cli
