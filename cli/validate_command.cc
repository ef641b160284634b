// topotune validate: predicted vs measured (nccl-tests log or measurement JSON), size by size.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>

#include "autotune/calibration.h"
#include "cli/commands.h"
#include "cli/file_output.h"
#include "cli/nccl_common.h"

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
  double measured_us, predicted_us, measured_busbw, predicted_busbw, error;
  std::string choice;
};

void print_summary(std::ostream& out, const tune::ErrorSummary& s) {
  char line[200];
  std::snprintf(line, sizeof line,
                "# sizes >= 1 MiB: %2d, median |busbw error| %5.1f%%, max %6.1f%%\n"
                "# sizes <  1 MiB: %2d, median |busbw error| %5.1f%%, max %6.1f%%\n",
                s.count_large, 100 * s.median_large, 100 * s.max_large, s.count_small,
                100 * s.median_small, 100 * s.max_small);
  out << line;
}

/// Runs gnuplot on a data file; the image goes to a temporary name, renamed when complete.
Expected<void> plot_busbw(const std::vector<Row>& rows, const std::string& path,
                          const std::string& title) {
  const std::filesystem::path target(path);
  const std::string ext = target.extension().string();
  if (ext != ".svg" && ext != ".png")
    return fail(Errc::InvalidArgument, "--plot needs .svg or .png");
  const std::string tmp_base = path + ".tmp." + std::to_string(::getpid());
  const std::string data = tmp_base + ".dat", script = tmp_base + ".gp", image = tmp_base + ext;
  {
    std::ofstream d(data);
    for (const Row& r : rows) {
      if (r.bytes > 0) d << r.bytes << " " << r.measured_busbw << " " << r.predicted_busbw << "\n";
    }
    std::ofstream g(script);
    g << "set terminal " << (ext == ".svg" ? "svg size 900,540" : "pngcairo size 900,540") << "\n"
      << "set output '" << image << "'\nset logscale x 2\nset key left top\n"
      << "set xlabel 'size (bytes)'\nset ylabel 'busbw (GB/s)'\nset title '" << title << "'\n"
      << "set format x '%.0s%cB'\n"
      << "plot '" << data << "' using 1:2 with linespoints title 'measured', '" << data
      << "' using 1:3 with linespoints title 'predicted'\n";
  }
  const std::string cmd = "gnuplot '" + script + "' 2>/dev/null";
  const int rc = std::system(cmd.c_str());
  std::remove(data.c_str());
  std::remove(script.c_str());
  if (rc != 0 || !std::filesystem::exists(image)) {
    std::remove(image.c_str());
    return fail(Errc::Io, "gnuplot failed (is gnuplot installed? apt-get install gnuplot-nox)");
  }
  std::error_code ec;
  std::filesystem::rename(image, target, ec);
  if (ec) return fail(Errc::Io, "cannot write '" + path + "': " + ec.message());
  return {};
}

Expected<std::vector<Row>> compare(const rt::Measurement& m, const algo::NcclPredictor& pred) {
  std::vector<Row> rows;
  const double factor = rt::busbw_factor(m.collective, m.ranks);
  for (const rt::MeasurementRow& r : m.rows) {
    if (r.bytes <= 0 || r.time_us <= 0) continue;
    TT_TRY(const algo::NcclPrediction p, pred.predict(m.collective, Bytes(r.bytes)));
    const double t = p.chosen.time.us();
    const double meas_busbw = static_cast<double>(r.bytes) / (r.time_us * 1e3) * factor;
    rows.push_back(Row{r.bytes, r.time_us, t, meas_busbw, p.busbw_GBps,
                       tune::busbw_error(r.time_us, t),
                       std::string(algo::nccl_algo_name(p.chosen.algo)) + "/" +
                           algo::nccl_proto_name(p.chosen.proto)});
  }
  if (rows.empty()) return fail(Errc::InvalidArgument, "the measurement has no sizes > 0");
  return rows;
}

Expected<void> run_validate(const ValidateArgs& a, std::ostream& out) {
  TT_TRY(const rt::Measurement m, load_measurement(a.nccl_tests, a.measured));
  TT_TRY(algo::NcclSystem probe, resolve_nccl_system(a.instance, 1, a.cluster));
  TT_TRY(const int nodes, nodes_of(m, a.nodes, probe.gpus_per_node));
  TT_TRY(algo::NcclSystem sys, resolve_nccl_system(a.instance, nodes, a.cluster));
  sys.gpus_per_thread = a.gpus_per_thread.value_or(m.gpus_per_thread.value_or(1));
  if (sys.ranks() != m.ranks) {
    return fail(Errc::InvalidArgument, "the log has " + std::to_string(m.ranks) + " ranks but " +
                                           sys.instance + " x " + std::to_string(nodes) + " has " +
                                           std::to_string(sys.ranks()));
  }
  const std::string version =
      !a.nccl_version.empty() ? a.nccl_version : m.nccl_version.value_or("");
  TT_TRY(const algo::NcclOptions opts, make_nccl_options(version, a.nccl_algo, a.nccl_proto));
  TT_TRY(const algo::NcclModelParams params, load_nccl_model(a.calibration));
  const algo::NcclPredictor predictor(sys, params, opts);
  TT_TRY(const std::vector<Row> rows, compare(m, predictor));
  out << "# topotune validate: " << sys.instance << " x " << nodes << " node(s), " << m.ranks
      << " ranks, " << sched::collective_name(m.collective) << ", NCCL " << opts.version.str()
      << "\n#       size   meas time   pred time  meas busbw  pred busbw   error  predicted\n"
      << "#        (B)        (us)        (us)      (GB/s)      (GB/s)     (%)  algo/proto\n";
  std::vector<tune::MeasuredPoint> points;
  std::vector<double> errors;
  for (const Row& r : rows) {
    char line[200];
    std::snprintf(line, sizeof line, "%12lld  %10.2f  %10.2f  %10.2f  %10.2f  %+6.1f  %s\n",
                  static_cast<long long>(r.bytes), r.measured_us, r.predicted_us, r.measured_busbw,
                  r.predicted_busbw, 100 * r.error, r.choice.c_str());
    out << line;
    points.push_back({Bytes(r.bytes), r.measured_us});
    errors.push_back(r.error);
  }
  print_summary(out, tune::summarize_errors(points, errors));
  if (!a.plot.empty()) {
    TT_TRY_VOID(plot_busbw(rows, a.plot, sys.instance + " x " + std::to_string(nodes)));
    out << "# plot written to " << a.plot << "\n";
  }
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
  return [a](std::ostream& out) { return run_validate(*a, out); };
}

}  // namespace topotune::cli
