// topotune calibrate: fits the NCCL model's physical parameters to measured runs.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "autotune/calibration.h"
#include "cli/commands.h"
#include "cli/file_output.h"
#include "cli/nccl_common.h"

namespace topotune::cli {
namespace {

struct CalibrateArgs {
  std::vector<std::string> logs;
  std::vector<std::string> measured;
  std::vector<std::string> instances;
  std::vector<int> nodes;
  std::vector<std::string> versions;
  std::vector<std::string> algos;
  std::string params;
  std::string start;
  std::string output;
  std::string description;
  int rounds = 60;
};

/// The i-th of a per-run option list: one value applies to every run.
template <class T>
Expected<T> nth(const std::vector<T>& v, std::size_t i, std::size_t runs, const char* flag,
                T dflt) {
  if (v.empty()) return dflt;
  if (v.size() == 1) return v[0];
  if (v.size() != runs) {
    return fail(Errc::InvalidArgument, std::string(flag) + " needs one value or one per run");
  }
  return v[i];
}

Expected<tune::CalibrationCase> make_case(const CalibrateArgs& a, std::size_t i) {
  const std::size_t runs = a.logs.size() + a.measured.size();
  const bool is_log = i < a.logs.size();
  const std::string file = is_log ? a.logs[i] : a.measured[i - a.logs.size()];
  TT_TRY(const rt::Measurement m,
         load_measurement(is_log ? file : "", is_log ? "" : file).context(file));
  TT_TRY(const std::string inst, nth(a.instances, i, runs, "--instance", std::string()));
  TT_TRY(const algo::NcclSystem probe, resolve_nccl_system(inst, 1, ""));
  TT_TRY(const int dflt_nodes, nodes_of(m, std::nullopt, probe.gpus_per_node));
  TT_TRY(const int nodes, nth(a.nodes, i, runs, "--nodes", dflt_nodes));
  TT_TRY(const std::string ver,
         nth(a.versions, i, runs, "--nccl-version", m.nccl_version.value_or("")));
  TT_TRY(std::string algo_list, nth(a.algos, i, runs, "--nccl-algo", std::string()));
  if (algo_list == "all") algo_list.clear();
  tune::CalibrationCase c;
  c.name = file;
  TT_TRY(c.system, resolve_nccl_system(inst, nodes, ""));
  c.system.gpus_per_thread = m.gpus_per_thread.value_or(1);
  if (c.system.ranks() != m.ranks) {
    return fail(Errc::InvalidArgument, file + ": " + std::to_string(m.ranks) +
                                           " ranks in the log, " +
                                           std::to_string(c.system.ranks()) + " in " + inst);
  }
  TT_TRY(c.options, make_nccl_options(ver, algo_list, ""));
  c.collective = m.collective;
  for (const rt::MeasurementRow& r : m.rows) c.points.push_back({Bytes(r.bytes), r.time_us});
  return c;
}

void report(std::ostream& out, const std::vector<tune::CalibrationCase>& cases,
            const algo::NcclModelParams& before, const algo::NcclModelParams& after) {
  out << "# run                                        median|err| >=1MiB (before -> after)   "
         "<1MiB (before -> after)\n";
  for (const tune::CalibrationCase& c : cases) {
    const auto b = tune::predict_case(c, before), f = tune::predict_case(c, after);
    if (!b || !f) continue;
    std::vector<double> eb, ef;
    for (std::size_t i = 0; i < c.points.size(); ++i) {
      eb.push_back(tune::busbw_error(c.points[i].time_us, (*b)[i]));
      ef.push_back(tune::busbw_error(c.points[i].time_us, (*f)[i]));
    }
    const tune::ErrorSummary sb = tune::summarize_errors(c.points, eb);
    const tune::ErrorSummary sf = tune::summarize_errors(c.points, ef);
    char line[300];
    std::snprintf(line, sizeof line, "%-44s %6.1f%% -> %5.1f%%               %6.1f%% -> %5.1f%%\n",
                  c.name.c_str(), 100 * sb.median_large, 100 * sf.median_large,
                  100 * sb.median_small, 100 * sf.median_small);
    out << line;
  }
}

Expected<void> run_calibrate(const CalibrateArgs& a, std::ostream& out) {
  const std::size_t runs = a.logs.size() + a.measured.size();
  if (runs == 0)
    return fail(Errc::InvalidArgument, "give at least one --nccl-tests LOG or --measured FILE");
  if (a.instances.empty())
    return fail(Errc::InvalidArgument, "give --instance (one, or one per run)");
  std::vector<tune::CalibrationCase> cases;
  for (std::size_t i = 0; i < runs; ++i) {
    TT_TRY(tune::CalibrationCase c, make_case(a, i));
    cases.push_back(std::move(c));
  }
  TT_TRY(const algo::NcclModelParams start, load_nccl_model(a.start));
  tune::CalibrationOptions opt;
  opt.max_rounds = a.rounds;
  for (std::size_t p = 0, q = 0; p <= a.params.size(); p = q + 1) {
    q = a.params.find(',', p);
    if (q == std::string::npos) q = a.params.size();
    if (q > p) opt.parameters.push_back(a.params.substr(p, q - p));
  }
  TT_TRY(const tune::CalibrationResult res, tune::calibrate(cases, start, opt));
  std::string description = a.description;
  if (description.empty()) {
    description = "calibrated by topotune calibrate on:";
    for (const auto& c : cases) description += " " + c.name;
  }
  TT_TRY_VOID(write_file_atomically(a.output, algo::params_to_json(res.params, description)));
  char line[200];
  std::snprintf(line, sizeof line,
                "# loss (mean squared log time error) %.5f -> %.5f, %d evaluations\n",
                res.loss_before, res.loss_after, res.evaluations);
  out << line;
  report(out, cases, start, res.params);
  algo::NcclModelParams copy = res.params;
  for (const std::string& name : res.fitted) {
    std::snprintf(line, sizeof line, "#   %-36s %.6g\n", name.c_str(),
                  *algo::find_param(name)->ref(copy));
    out << line;
  }
  out << "# written to " << a.output << "\n";
  return {};
}

}  // namespace

CommandRun setup_calibrate(CLI::App& sub) {
  auto a = std::make_shared<CalibrateArgs>();
  sub.add_option("--nccl-tests", a->logs, "nccl-tests logs to fit (repeatable)");
  sub.add_option("--measured", a->measured, "measurement JSON files to fit (repeatable)");
  sub.add_option("--instance", a->instances, "instance of each run (one for all, or one per run)");
  sub.add_option("--nodes", a->nodes, "nodes of each run (default: from each log)");
  sub.add_option("--nccl-version", a->versions, "NCCL release of each run (default: from the log)");
  sub.add_option("--nccl-algo", a->algos, "NCCL_ALGO of each run ('all' = unrestricted)");
  sub.add_option("--params", a->params, "comma list of parameters to fit (default: all fittable)");
  sub.add_option("--start", a->start, "start from this calibration instead of the defaults");
  sub.add_option("--rounds", a->rounds, "coordinate-descent passes (default 60)");
  sub.add_option("--description", a->description, "description stored in the output file");
  sub.add_option("-o,--output", a->output, "calibration file to write")->required();
  return [a](std::ostream& out) { return run_calibrate(*a, out); };
}

}  // namespace topotune::cli
