// topotune validate: predicted vs measured (nccl-tests log or measurement JSON), size by size.
// Each row is predicted by the model of the algorithm it ran: `nccl` rows by the NCCL
// predictor, rows of topotune's algorithms (ring, tree, rhd, ps, hierarchical, with the
// options `measure` recorded) by their own schedule on the flow simulator, `mpi` rows by the
// Open MPI allreduce model (tune::SchedulePredictor).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include "autotune/calibration.h"
#include "autotune/log_health.h"
#include "autotune/schedule_predictor.h"
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

struct Row {
  std::int64_t bytes;
  std::string algorithm;  ///< what the row ran
  double measured_us, predicted_us, measured_busbw, predicted_busbw, error;
  std::string model;  ///< what predicted it: NCCL's choice "ring/LL128", "simulated", ...
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

/// The summary of the rows whose algorithm is `algorithm` ("" = every row).
tune::ErrorSummary summary_of(const std::vector<Row>& rows, const std::string& algorithm) {
  std::vector<tune::MeasuredPoint> points;
  std::vector<double> errors;
  for (const Row& r : rows) {
    if (!algorithm.empty() && r.algorithm != algorithm) continue;
    points.push_back({Bytes(r.bytes), r.measured_us});
    errors.push_back(r.error);
  }
  return tune::summarize_errors(points, errors);
}

/// The rows' algorithms in first-seen order (deterministic: the file's order).
std::vector<std::string> algorithms_of(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const Row& r : rows) {
    if (std::find(out.begin(), out.end(), r.algorithm) == out.end()) out.push_back(r.algorithm);
  }
  return out;
}

/// --plot's format from the file name; checked with the path before any work.
Expected<PlotFormat> plot_format(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".svg") return PlotFormat::Svg;
  if (ext == ".png") return PlotFormat::Png;
  return fail(Errc::InvalidArgument, "--plot needs a .svg or .png file name, got '" + path + "'");
}

/// Draws the rows with gnuplot (one series per algorithm) and writes the image atomically.
Expected<void> plot_busbw(const std::vector<Row>& rows, const std::string& path,
                          const std::string& title) {
  TT_TRY(const PlotFormat format, plot_format(path));
  std::vector<BusbwSeries> series;
  const std::vector<std::string> algorithms = algorithms_of(rows);
  for (const std::string& name : algorithms) {
    BusbwSeries s{algorithms.size() > 1 ? name : "", {}};
    for (const Row& r : rows) {
      if (r.bytes > 0 && r.algorithm == name)
        s.points.push_back({r.bytes, r.measured_busbw, r.predicted_busbw});
    }
    series.push_back(std::move(s));
  }
  TT_TRY(const std::string image, run_gnuplot(busbw_plot_script(series, title, format)));
  return write_file_atomically(path, image);
}

/// The models rows are predicted with: NCCL's for `nccl` rows, the schedule simulator (built
/// on first use: a log of NCCL rows needs no topology) for every other algorithm.
struct RowModels {
  const algo::NcclPredictor& nccl;
  topo::ClusterSpec cluster;  ///< with --calibration's link parameters applied
  int channels = 1, chunks = 1;
  std::optional<tune::SchedulePredictor> schedules;

  /// Returns {predicted time in µs, model description}.
  Expected<std::pair<double, std::string>> predict(const std::string& algorithm,
                                                   sched::CollectiveSpec spec) {
    if (algorithm == "nccl") {
      TT_TRY(const algo::NcclPrediction p, nccl.predict(spec.collective, spec.bytes));
      return std::pair{p.chosen.time.us(), std::string(algo::nccl_algo_name(p.chosen.algo)) + "/" +
                                               algo::nccl_proto_name(p.chosen.proto)};
    }
    if (!schedules) {
      TT_TRY(const algo::MemoryBudget memory, simulation_budget());
      TT_TRY(schedules, tune::SchedulePredictor::create(cluster, channels, chunks, memory));
    }
    TT_TRY(const Seconds t, schedules->time(algorithm, spec).context(algorithm));
    return std::pair{t.us(), std::string(algorithm == "mpi" ? "simulated rhd (Open MPI model)"
                                                            : "simulated schedule")};
  }
};

Expected<std::vector<Row>> compare(const rt::Measurement& m, RowModels& models) {
  std::vector<Row> rows;
  const double factor = sched::busbw_factor(m.collective, m.ranks);
  for (const rt::MeasurementRow& r : m.rows) {
    if (r.bytes <= 0 || r.time_us <= 0) continue;
    sched::CollectiveSpec spec;
    spec.collective = m.collective;
    spec.dtype = r.dtype;
    spec.ranks = m.ranks;
    spec.bytes = Bytes(r.bytes);
    TT_TRY(const auto pred, models.predict(r.algorithm, spec));
    const double t = pred.first;
    const double meas_busbw = static_cast<double>(r.bytes) / (r.time_us * 1e3) * factor;
    const double pred_busbw = static_cast<double>(r.bytes) / (t * 1e3) * factor;
    rows.push_back(Row{r.bytes, r.algorithm, r.time_us, t, meas_busbw, pred_busbw,
                       tune::busbw_error(r.time_us, t), pred.second});
  }
  if (rows.empty()) return fail(Errc::InvalidArgument, "the measurement has no sizes > 0");
  return rows;
}

void print_rows(std::ostream& out, const std::vector<Row>& rows) {
  out << "#       size  algorithm            meas time   pred time  meas busbw  pred busbw   error"
         "  predicted by\n"
      << "#        (B)                            (us)        (us)      (GB/s)      (GB/s)     (%)"
         "  (NCCL: algo/proto)\n";
  for (const Row& r : rows) {
    std::string line;
    line = string_printf("%12lld  %-18s  %10.2f  %10.2f  %10.2f  %10.2f  %+6.1f  %s\n",
                         static_cast<long long>(r.bytes), r.algorithm.c_str(), r.measured_us,
                         r.predicted_us, r.measured_busbw, r.predicted_busbw, 100 * r.error,
                         r.model.c_str());
    out << line;
  }
  print_summary(out, summary_of(rows, ""), "");
  const std::vector<std::string> algorithms = algorithms_of(rows);
  if (algorithms.size() < 2) return;
  for (const std::string& name : algorithms) {
    print_summary(out, summary_of(rows, name), name + ": ");
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
  TT_TRY(const algo::NcclModelParams params, load_nccl_model(a.calibration));
  TT_TRY_VOID(apply_calibration_file(a.calibration, cluster).context("--calibration"));
  const algo::NcclPredictor predictor(sys, params, opts);
  RowModels models{predictor, cluster, m.channels.value_or(1), m.chunks.value_or(1), {}};
  TT_TRY(const std::vector<Row> rows, compare(m, models));
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
    for (const Row& r : rows) points.push_back({r.bytes, r.measured_busbw, r.predicted_busbw});
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
