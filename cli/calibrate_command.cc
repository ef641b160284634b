// topotune calibrate: fits the NCCL model's physical parameters to measured runs of NCCL
// (nccl-tests logs, `nccl` rows of measure JSON), and the link classes' parameters to measured
// runs of topotune's own algorithms (the other rows) with the flow simulator as the model.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "autotune/calibration.h"
#include "autotune/link_fit.h"
#include "cli/algorithm_flags.h"
#include "cli/commands.h"
#include "cli/nccl_common.h"
#include "cli/progress_line.h"
#include "core/file_output.h"
#include "core/quantity_parse.h"
#include "core/string_printf.h"
#include "core/utf8.h"

namespace topotune::cli {
namespace {

struct CalibrateArgs {
  std::vector<std::string> logs;
  std::vector<std::string> measured;
  std::vector<std::string> instances;
  std::vector<int> nodes;
  std::vector<std::string> versions;
  std::vector<std::string> algos;
  std::vector<std::string> clusters;
  std::string params;
  std::string link_params;
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

/// Run i's instance and cluster file (either may be empty, not both).
struct RunCluster {
  std::string instance, cluster;
};

Expected<RunCluster> run_cluster(const CalibrateArgs& a, std::size_t i, std::size_t runs) {
  RunCluster rc;
  TT_TRY(rc.instance, nth(a.instances, i, runs, "--instance", std::string()));
  TT_TRY(rc.cluster, nth(a.clusters, i, runs, "--cluster", std::string()));
  return rc;
}

Expected<tune::CalibrationCase> make_case(const CalibrateArgs& a, std::size_t i,
                                          const rt::Measurement& m, const std::string& file) {
  const std::size_t runs = a.logs.size() + a.measured.size();
  TT_TRY(const RunCluster rc, run_cluster(a, i, runs));
  const std::string& inst = rc.instance;
  TT_TRY(const algo::NcclSystem probe, resolve_nccl_system(inst, 1, rc.cluster));
  TT_TRY(const int dflt_nodes, nodes_of(m, std::nullopt, probe.gpus_per_node));
  TT_TRY(const int nodes, nth(a.nodes, i, runs, "--nodes", dflt_nodes));
  TT_TRY(const std::string ver,
         nth(a.versions, i, runs, "--nccl-version", m.nccl_version.value_or("")));
  TT_TRY(std::string algo_list, nth(a.algos, i, runs, "--nccl-algo", std::string()));
  if (algo_list == "all") algo_list.clear();
  tune::CalibrationCase c;
  c.name = file;
  TT_TRY(c.system, resolve_nccl_system(inst, nodes, rc.cluster));
  c.system.gpus_per_thread = m.gpus_per_thread.value_or(1);
  if (c.system.ranks() != m.ranks) {
    return fail(Errc::InvalidArgument,
                file + ": " + std::to_string(m.ranks) + " ranks in the log, " +
                    std::to_string(c.system.ranks()) + " in " + c.system.instance);
  }
  TT_TRY(c.options, make_nccl_options(ver, algo_list, ""));
  c.collective = m.collective;
  for (const rt::MeasurementRow& r : m.rows) c.points.push_back({Bytes(r.bytes), r.time_us});
  return c;
}

/// A run of topotune's own algorithms: its cluster (the link parameters' start) and points.
Expected<tune::LinkFitCase> make_link_case(const CalibrateArgs& a, std::size_t i,
                                           const rt::Measurement& m, const std::string& file) {
  const std::size_t runs = a.logs.size() + a.measured.size();
  TT_TRY(const RunCluster rc, run_cluster(a, i, runs));
  TT_TRY(const topo::ClusterSpec probe, resolve_cluster_spec(rc.instance, 1, rc.cluster));
  TT_TRY(const int dflt_nodes, nodes_of(m, std::nullopt, probe.instance.num_gpus));
  TT_TRY(const int nodes, nth(a.nodes, i, runs, "--nodes", dflt_nodes));
  tune::LinkFitCase c;
  c.name = file;
  TT_TRY(c.cluster, resolve_cluster_spec(rc.instance, nodes, rc.cluster));
  const int ranks = c.cluster.hosts * c.cluster.instance.num_gpus;
  if (ranks != m.ranks) {
    return fail(Errc::InvalidArgument, file + ": " + std::to_string(m.ranks) + " ranks measured, " +
                                           std::to_string(ranks) + " in " +
                                           c.cluster.instance.name);
  }
  c.channels = m.channels.value_or(1);
  c.chunks = m.chunks.value_or(1);
  TT_TRY(c.memory, simulation_budget());
  c.collective = m.collective;
  for (const rt::MeasurementRow& r : m.rows) {
    c.points.push_back({r.algorithm, Bytes(r.bytes), r.dtype, r.time_us});
  }
  return c;
}

/// Splits a run by model: `nccl` rows go to the NCCL fit, the others to the link fit.
std::pair<rt::Measurement, rt::Measurement> split_rows(const rt::Measurement& m) {
  rt::Measurement nccl = m, links = m;
  nccl.rows.clear();
  links.rows.clear();
  for (const rt::MeasurementRow& r : m.rows) {
    (r.algorithm == "nccl" ? nccl : links).rows.push_back(r);
  }
  return {nccl, links};
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
    std::string line;
    line = string_printf("%-44s %6.1f%% -> %5.1f%%               %6.1f%% -> %5.1f%%\n",
                         c.name.c_str(), 100 * sb.median_large, 100 * sf.median_large,
                         100 * sb.median_small, 100 * sf.median_small);
    out << line;
  }
}

struct Cases {
  std::vector<tune::CalibrationCase> nccl;
  std::vector<tune::LinkFitCase> links;
};

Expected<Cases> load_cases(const CalibrateArgs& a) {
  Cases cases;
  for (std::size_t i = 0; i < a.logs.size() + a.measured.size(); ++i) {
    const bool is_log = i < a.logs.size();
    const std::string file = is_log ? a.logs[i] : a.measured[i - a.logs.size()];
    TT_TRY(const rt::Measurement m,
           load_measurement(is_log ? file : "", is_log ? "" : file).context(file));
    const auto [nccl, links] = split_rows(m);
    if (!nccl.rows.empty()) {
      TT_TRY(tune::CalibrationCase c, make_case(a, i, nccl, file));
      cases.nccl.push_back(std::move(c));
    }
    if (!links.rows.empty()) {
      TT_TRY(tune::LinkFitCase c, make_link_case(a, i, links, file).context(file));
      cases.links.push_back(std::move(c));
    }
  }
  return cases;
}

/// The link fit and its report; returns the "link_params" section.
Expected<std::string> fit_links(const CalibrateArgs& a, const std::vector<tune::LinkFitCase>& cases,
                                std::ostream& out) {
  tune::LinkFitOptions opt;
  opt.parameters = split_comma_list(a.link_params);
  opt.max_rounds = std::min(a.rounds, 30);
  TT_TRY(const tune::LinkFitResult res, tune::fit_link_params(cases, opt));
  std::string line;
  line = string_printf(
      "# link classes (flow simulator on %zu run(s)): loss %.5f -> %.5f, %d "
      "evaluations\n# run                                        median|err| >=1MiB "
      "(before -> after)   <1MiB (before -> after)\n",
      cases.size(), res.loss_before, res.loss_after, res.evaluations);
  out << line;
  for (const tune::LinkFitCase& c : cases) {
    TT_TRY(const std::vector<double> before, tune::predict_link_case(c, c.cluster.link_params));
    TT_TRY(const std::vector<double> after, tune::predict_link_case(c, res.params));
    std::vector<tune::MeasuredPoint> pts;
    std::vector<double> eb, ef;
    for (std::size_t i = 0; i < c.points.size(); ++i) {
      pts.push_back({c.points[i].bytes, c.points[i].time_us});
      eb.push_back(tune::busbw_error(c.points[i].time_us, before[i]));
      ef.push_back(tune::busbw_error(c.points[i].time_us, after[i]));
    }
    const tune::ErrorSummary sb = tune::summarize_errors(pts, eb);
    const tune::ErrorSummary sf = tune::summarize_errors(pts, ef);
    line = string_printf("%-44s %6.1f%% -> %5.1f%%               %6.1f%% -> %5.1f%%\n",
                         c.name.c_str(), 100 * sb.median_large, 100 * sf.median_large,
                         100 * sb.median_small, 100 * sf.median_small);
    out << line;
  }
  out << "#   link_params " << tune::link_params_section(res) << "\n";
  return tune::link_params_section(res);
}

/// The parameters to fit: those asked for (default: every fittable one) that the logs can
/// determine, i.e. that move the loss when scaled by 20 %. Asking for one the logs cannot
/// determine, or for more parameters than the logs have sizes, is an error.
Expected<std::vector<std::string>> determinable(const CalibrateArgs& a,
                                                const std::vector<tune::CalibrationCase>& cases,
                                                const algo::NcclModelParams& start,
                                                std::ostream& out) {
  const std::vector<std::string> asked = split_comma_list(a.params);
  std::vector<std::string> names = asked, kept;
  if (names.empty()) {
    for (const algo::ParamInfo& p : algo::param_table())
      if (p.fittable) names.push_back(p.name);
  }
  TT_TRY(const double base, tune::calibration_loss(cases, start));
  std::vector<std::string> out_names;
  for (const std::string& name : names) {
    const algo::ParamInfo* info = algo::find_param(name);
    if (!info || !info->fittable) {
      out_names.push_back(name);  // tune::calibrate names the error
      continue;
    }
    algo::NcclModelParams probe = start;
    double& v = *info->ref(probe);
    v = std::clamp(v * 1.2 > info->max ? v / 1.2 : v * 1.2, info->min, info->max);
    TT_TRY(const double moved, tune::calibration_loss(cases, probe));
    if (std::abs(moved - base) > 1e-12 * std::max(1.0, base)) {
      out_names.push_back(name);
    } else if (!asked.empty()) {
      return fail(Errc::InvalidArgument,
                  "the logs cannot determine '" + name + "' (no run's prediction depends on it)");
    } else {
      kept.push_back(name);
    }
  }
  std::size_t sizes = 0;
  for (const tune::CalibrationCase& c : cases) sizes += c.points.size();
  if (out_names.size() > sizes) {
    return fail(Errc::InvalidArgument, std::to_string(out_names.size()) + " parameters but only " +
                                           std::to_string(sizes) +
                                           " measured sizes: give fewer with --params");
  }
  if (!kept.empty()) {
    out << "# not determined by these logs (kept at their start values):";
    for (const std::string& n : kept) out << " " << n;
    out << "\n";
  }
  return out_names;
}

/// Warns about fitted parameters that ended at a bound: the logs ask for more than the
/// parameter's physical range allows, so something else in the model is off.
void warn_at_bounds(const tune::CalibrationResult& res, std::ostream& out) {
  algo::NcclModelParams copy = res.params;
  for (const std::string& name : res.fitted) {
    const algo::ParamInfo* info = algo::find_param(name);
    const double v = *info->ref(copy);
    const bool lo = v <= info->min * (1 + 1e-3), hi = v >= info->max * (1 - 1e-3);
    if (!lo && !hi) continue;
    std::string line;
    line = string_printf(
        "# warning: %s ended at its %s bound (%g): the logs ask for a value outside its "
        "physical range, so another part of the model does not fit them\n",
        name.c_str(), lo ? "lower" : "upper", v);
    out << line;
  }
}

/// The NCCL fit and its report; returns the fitted parameters.
Expected<algo::NcclModelParams> fit_nccl(const CalibrateArgs& a,
                                         const std::vector<tune::CalibrationCase>& cases,
                                         const algo::NcclModelParams& start, std::ostream& out) {
  tune::CalibrationOptions opt;
  opt.max_rounds = a.rounds;
  ProgressLine progress("calibrate: loss evaluations");  // long fits say they are alive
  opt.on_evaluation = [&progress](int n) { progress.update(n); };
  TT_TRY(opt.parameters, determinable(a, cases, start, out));
  if (opt.parameters.empty()) return fail(Errc::InvalidArgument, "the logs determine no parameter");
  TT_TRY(const tune::CalibrationResult res, tune::calibrate(cases, start, opt));
  std::string line;
  line = string_printf("# loss (mean squared log time error) %.5f -> %.5f, %d evaluations\n",
                       res.loss_before, res.loss_after, res.evaluations);
  out << line;
  report(out, cases, start, res.params);
  warn_at_bounds(res, out);
  algo::NcclModelParams copy = res.params;
  for (const std::string& name : res.fitted) {
    line = string_printf("#   %-36s %.6g\n", name.c_str(), *algo::find_param(name)->ref(copy));
    out << line;
  }
  return res.params;
}

Expected<void> run_calibrate(const CalibrateArgs& a, std::ostream& out) {
  if (a.logs.empty() && a.measured.empty())
    return fail(Errc::InvalidArgument, "give at least one --nccl-tests LOG or --measured FILE");
  if (a.instances.empty() && a.clusters.empty())
    return fail(Errc::InvalidArgument, "give --instance or --cluster (one, or one per run)");
  TT_TRY_VOID(check_output_path(a.output).context("-o"));  // before the fit, not after it
  if (!is_valid_utf8(a.description)) {                     // the JSON output cannot hold it
    return fail(Errc::InvalidArgument, "--description is not valid UTF-8");
  }
  TT_TRY(const Cases cases, load_cases(a));
  TT_TRY(algo::NcclModelParams params, tune::load_nccl_model(a.start));
  std::string links;
  // Fitting both before writing: a failed fit leaves no file.
  if (!cases.nccl.empty()) {
    TT_TRY(params, fit_nccl(a, cases.nccl, params, out));
  }
  if (!cases.links.empty()) {
    TT_TRY(links, fit_links(a, cases.links, out));
  }
  std::vector<std::string> nccl_runs, link_runs;
  for (const auto& c : cases.nccl) nccl_runs.push_back(c.name);
  for (const auto& c : cases.links) link_runs.push_back(c.name);
  const std::string description =
      a.description.empty() ? tune::calibration_description(nccl_runs, link_runs) : a.description;
  const std::string text = tune::calibration_file_text(params, description, links);
  TT_TRY_VOID(write_file_atomically(a.output, text).context("-o"));
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
  sub.add_option("--cluster", a->clusters,
                 "cluster JSON of each run instead of --instance (e.g. `emulate up`'s)");
  sub.add_option("--params", a->params, "comma list of parameters to fit (default: all fittable)");
  sub.add_option("--link-params", a->link_params,
                 "link parameters to fit from runs of topotune's algorithms, e.g. "
                 "network.efficiency,network.latency_us (default: every class used)");
  sub.add_option("--start", a->start, "start from this calibration instead of the defaults");
  sub.add_option("--rounds", a->rounds, "coordinate-descent passes (default 60)");
  sub.add_option("--description", a->description, "description stored in the output file");
  sub.add_option("-o,--output", a->output, "calibration file to write")->required();
  return [a](std::ostream& out) { return run_calibrate(*a, out); };
}

}  // namespace topotune::cli
