// topotune validate: predicted vs measured (nccl-tests log or measurement JSON), size by size;
// the comparison is autotune/validation.h's, the health verdict autotune/log_health.h's.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include "autotune/calibration.h"
#include "autotune/log_health.h"
#include "autotune/validation.h"
#include "cli/algorithm_flags.h"
#include "cli/busbw_plot.h"
#include "cli/commands.h"
#include "cli/nccl_common.h"
#include "core/file_output.h"
#include "core/string_printf.h"

namespace topotune::cli {
namespace {

struct ValidateArgs {
  std::string nccl_tests;
  std::string measured;
  std::string instance;
  std::optional<int> nodes;
  std::string cluster;
  std::string nccl_version;
  std::string nccl_algo;
  std::string nccl_proto;
  std::string calibration;
  std::string plot;
  std::optional<int> gpus_per_thread;
};

/// The acceptance summary; with a `prefix` (one algorithm's rows) empty size classes are left out.
void print_summary(std::ostream& out, const tune::ErrorSummary& s, const std::string& prefix) {
  std::string line;
  if (prefix.empty() || s.count_large > 0) {
    line = string_printf("# %ssizes >= 1 MiB: %2d, median |busbw error| %5.1f%%, max %6.1f%%\n",
                         prefix.c_str(), s.count_large, 100 * s.median_large, 100 * s.max_large);
    out << line;
  }
  if (prefix.empty() || s.count_small > 0) {
    line = string_printf("# %ssizes <  1 MiB: %2d, median |busbw error| %5.1f%%, max %6.1f%%\n",
                         prefix.c_str(), s.count_small, 100 * s.median_small, 100 * s.max_small);
    out << line;
  }
}

/// --plot's format from the file name; checked with the path before any work.
Expected<PlotFormat> plot_format(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".svg") return PlotFormat::Svg;
  if (ext == ".png") return PlotFormat::Png;
  return fail(Errc::InvalidArgument, "--plot needs a .svg or .png file name, got '" + path + "'");
}

/// Draws the rows with gnuplot (one series per algorithm) and writes the image atomically.
Expected<void> plot_busbw(const std::vector<tune::ValidationRow>& rows, const std::string& path,
                          const std::string& title) {
  TT_TRY(const PlotFormat format, plot_format(path));
  std::vector<BusbwSeries> series;
  const std::vector<std::string> algorithms = tune::algorithms_of(rows);
  for (const std::string& name : algorithms) {
    BusbwSeries s{algorithms.size() > 1 ? name : "", {}};
    for (const tune::ValidationRow& r : rows) {
      if (r.bytes > 0 && r.algorithm == name)
        s.points.push_back({r.bytes, r.measured_busbw, r.predicted_busbw});
    }
    series.push_back(std::move(s));
  }
  TT_TRY(const std::string image, run_gnuplot(busbw_plot_script(series, title, format)));
  return write_file_atomically(path, image);
}

void print_rows(std::ostream& out, const std::vector<tune::ValidationRow>& rows) {
  out << "#       size  algorithm            meas time   pred time  meas busbw  pred busbw   error"
         "  predicted by\n"
      << "#        (B)                            (us)        (us)      (GB/s)      (GB/s)     (%)"
         "  (NCCL: algo/proto)\n";
  for (const tune::ValidationRow& r : rows) {
    std::string line;
    line = string_printf("%12lld  %-18s  %10.2f  %10.2f  %10.2f  %10.2f  %+6.1f  %s\n",
                         static_cast<long long>(r.bytes), r.algorithm.c_str(), r.measured_us,
                         r.predicted_us, r.measured_busbw, r.predicted_busbw, 100 * r.error,
                         r.model.c_str());
    out << line;
  }
  print_summary(out, tune::summary_of(rows, ""), "");
  const std::vector<std::string> algorithms = tune::algorithms_of(rows);
  if (algorithms.size() < 2) return;
  for (const std::string& name : algorithms) {
    print_summary(out, tune::summary_of(rows, name), name + ": ");
  }
}

Expected<void> run_validate(const ValidateArgs& a, std::ostream& out) {
  if (!a.plot.empty()) {  // before any work: a bad --plot must not come after the report
    TT_TRY_VOID(plot_format(a.plot));
    TT_TRY_VOID(check_output_path(a.plot).context("--plot"));
  }
  if (a.gpus_per_thread && (*a.gpus_per_thread < 1 || *a.gpus_per_thread > 1024)) {
    return fail(Errc::InvalidArgument, "--gpus-per-thread must be in [1, 1024]");
  }
  TT_TRY(const rt::Measurement m, load_measurement(a.nccl_tests, a.measured));
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
  const tune::MeasuredRun run = measured_run(m);
  tune::RowPredictor models(predictor, cluster, run.channels, run.chunks, simulation_budget);
  TT_TRY(const std::vector<tune::ValidationRow> rows, tune::compare_run(run, models));
  if (!a.plot.empty()) {  // the plot is written before the report is printed
    TT_TRY_VOID(plot_busbw(rows, a.plot, sys.instance + " x " + std::to_string(sys.nodes))
                    .context("--plot"));
  }
  out << "# topotune validate: " << sys.instance << " x " << sys.nodes << " node(s), " << m.ranks
      << " ranks, " << sched::collective_name(m.collective) << ", NCCL " << opts.version.str()
      << "\n";
  for (const std::string& w :
       tune::log_contradictions({m.gpu_names, m.nodes}, cluster, a.nodes.has_value()))
    out << "# warning: " << w << "\n";
  print_rows(out, rows);
  if (!a.nccl_tests.empty()) {
    std::vector<tune::HealthPoint> points;
    for (const tune::ValidationRow& r : rows)
      points.push_back({r.bytes, r.measured_busbw, r.predicted_busbw});
    out << "# verdict: " << tune::judge_health(points, sys).text << "\n";
  }
  if (!a.plot.empty()) out << "# plot written to " << a.plot << "\n";
  return {};
}

}  // namespace

CommandRun setup_validate(CLI::App& sub) {
  auto a = std::make_shared<ValidateArgs>();
  sub.add_option("--nccl-tests", a->nccl_tests, "nccl-tests output (all_reduce_perf ...)");
  sub.add_option("--measured", a->measured, "measurement JSON (topotune measure)");
  sub.add_option("--instance", a->instance, "catalog instance the run used");
  sub.add_option("--nodes", a->nodes, "nodes of the run (default: from the log)");
  sub.add_option("--cluster", a->cluster, "cluster JSON file instead of --instance");
  sub.add_option("--nccl-version", a->nccl_version, "NCCL release (default: from the log)");
  sub.add_option("--nccl-algo", a->nccl_algo, "NCCL_ALGO the run used, e.g. ring");
  sub.add_option("--nccl-proto", a->nccl_proto, "NCCL_PROTO the run used");
  sub.add_option("--calibration", a->calibration, "parameters from `topotune calibrate`");
  sub.add_option("--gpus-per-thread", a->gpus_per_thread, "nccl-tests -g (default: from the log)");
  sub.add_option("--plot", a->plot, "write measured and predicted busbw to FILE.svg or .png");
  sub.footer(
      "Examples:\n"
      "  topotune validate --nccl-tests all_reduce_perf.log --instance p4d.24xlarge --nodes 2\n"
      "  topotune validate --measured measured.json --cluster cluster.json");
  return [a](std::ostream& out) { return run_validate(*a, out); };
}

}  // namespace topotune::cli
