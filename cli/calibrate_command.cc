// topotune calibrate: fits the NCCL model's physical parameters to measured runs of NCCL
// (nccl-tests logs, `nccl` rows of measure JSON), and the link classes' parameters to measured
// runs of topotune's own algorithms (the other rows) with the flow simulator as the model.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "calibration/calibration.h"
#include "calibration/calibration_file.h"
#include "calibration/fit_report.h"
#include "calibration/link_fit.h"
#include "calibration/param_selection.h"
#include "cli/algorithm_flags.h"
#include "cli/calibrate_report.h"
#include "cli/calibration_cases.h"
#include "cli/commands.h"
#include "cli/nccl_common.h"
#include "cli/output_format.h"
#include "cli/path_flag.h"
#include "cli/progress_line.h"
#include "core/file_output.h"
#include "core/quantity_parse.h"
#include "core/string_printf.h"
#include "core/utf8.h"

namespace topotune::cli {
namespace {

struct CalibrateArgs {
  CalibrationRuns runs;
  std::string params;
  std::string link_params;
  std::string start;
  std::string output;
  std::string description;
  int rounds = 60;
  OutputFormat format = OutputFormat::Table;
};

/// The link fit and its report; returns the "link_params" section.
Expected<std::string> fit_links(const CalibrateArgs& a, const std::vector<tune::LinkFitCase>& cases,
                                CalibrateReport& report) {
  tune::LinkFitOptions opt;
  opt.parameters = split_comma_list(a.link_params);
  opt.max_rounds = std::min(a.rounds, 30);
  TT_TRY(const tune::LinkFitResult res, tune::fit_link_params(cases, opt));
  FitSummary summary;
  summary.fit = "links";
  TT_TRY(summary.runs, tune::compare_link_fit(cases, res));
  summary.above = {string_printf(
      "# link classes (flow simulator on %zu run(s)): loss %.5f -> %.5f, %d evaluations\n",
      cases.size(), res.loss_before, res.loss_after, res.evaluations)};
  summary.below = {"#   link_params " + tune::link_params_section(res) + "\n"};
  report.fit(summary);
  return tune::link_params_section(res);
}

/// The NCCL fit and its report; returns the fitted parameters.
Expected<algo::NcclModelParams> fit_nccl(const CalibrateArgs& a,
                                         const std::vector<tune::CalibrationCase>& cases,
                                         const algo::NcclModelParams& start,
                                         CalibrateReport& report) {
  tune::CalibrationOptions opt;
  opt.max_rounds = a.rounds;
  ProgressLine progress("calibrate: loss evaluations");  // long fits say they are alive
  opt.on_evaluation = [&progress](int n) { progress.update(n); };
  TT_TRY(const tune::ParamSelection sel,
         tune::select_fit_params(cases, start, split_comma_list(a.params)));
  if (!sel.undetermined.empty()) {
    std::string line = "# not determined by these logs (kept at their start values):";
    for (const std::string& n : sel.undetermined) line += " " + n;
    report.note(line + "\n");
  }
  opt.parameters = sel.fit;
  if (opt.parameters.empty()) return fail(Errc::InvalidArgument, "the logs determine no parameter");
  TT_TRY(const tune::CalibrationResult res, tune::calibrate(cases, start, opt));
  FitSummary summary;
  summary.fit = "nccl";
  summary.above = {
      string_printf("# loss (mean squared log time error) %.5f -> %.5f, %d evaluations\n",
                    res.loss_before, res.loss_after, res.evaluations)};
  summary.runs = tune::compare_nccl_fit(cases, start, res.params);
  for (const tune::BoundHit& b : tune::params_at_bounds(res)) {
    summary.below.push_back(string_printf(
        "# warning: %s ended at its %s bound (%g): the logs ask for a value outside its "
        "physical range, so another part of the model does not fit them\n",
        b.name.c_str(), b.lower ? "lower" : "upper", b.value));
  }
  for (const tune::FittedValue& f : tune::fitted_values(res)) {
    summary.below.push_back(string_printf("#   %-36s %.6g\n", f.name.c_str(), f.value));
  }
  report.fit(summary);
  return res.params;
}

Expected<void> run_calibrate(const CalibrateArgs& a, std::ostream& out) {
  if (a.runs.logs.empty() && a.runs.measured.empty())
    return fail(Errc::InvalidArgument, "give at least one --nccl-tests LOG or --measured FILE");
  if (a.runs.instances.empty() && a.runs.clusters.empty())
    return fail(Errc::InvalidArgument, "give --instance or --cluster (one, or one per run)");
  TT_TRY_VOID(check_output_path(a.output).context("-o"));  // before the fit, not after it
  if (!is_valid_utf8(a.description)) {                     // the JSON output cannot hold it
    return fail(Errc::InvalidArgument, "--description is not valid UTF-8");
  }
  TT_TRY(const CalibrationCases cases, load_calibration_cases(a.runs));
  tune::LinkCalibration start{algo::default_params(), ""};
  if (!a.start.empty()) {
    TT_TRY(start, tune::load_start_calibration(a.start).context("--start"));
  }
  algo::NcclModelParams params = start.model;
  CalibrateReport report(a.format, out);
  std::string links;
  // Fitting both before writing: a failed fit leaves no file.
  if (!cases.nccl.empty()) {
    TT_TRY(params, fit_nccl(a, cases.nccl, params, report));
  }
  if (!cases.links.empty()) {
    TT_TRY(links, fit_links(a, cases.links, report));
  }
  std::vector<std::string> nccl_runs, link_runs;
  for (const auto& c : cases.nccl) nccl_runs.push_back(c.name);
  for (const auto& c : cases.links) link_runs.push_back(c.name);
  const std::string description =
      a.description.empty() ? tune::calibration_description(nccl_runs, link_runs) : a.description;
  // The start's link classes are kept unless this fit determined them (docs/calibration.md).
  const std::string text = tune::calibration_file_text(
      params, description, tune::merge_link_params(start.link_params_json, links));
  TT_TRY_VOID(write_file_atomically(a.output, text).context("-o"));
  report.written(a.output);
  return {};
}

}  // namespace

CommandRun setup_calibrate(CLI::App& sub) {
  auto a = std::make_shared<CalibrateArgs>();
  sub.add_option("--nccl-tests", a->runs.logs, "nccl-tests logs to fit (repeatable)");
  sub.add_option("--measured", a->runs.measured, "measurement JSON files to fit (repeatable)");
  sub.add_option("--instance", a->runs.instances,
                 "instance of each run (one for all, or one per run)");
  sub.add_option("--nodes", a->runs.nodes, "nodes of each run (default: from each log)");
  sub.add_option("--nccl-version", a->runs.versions,
                 "NCCL release of each run ('' or none: the one the log prints)");
  sub.add_option("--nccl-algo", a->runs.algos, "NCCL_ALGO of each run ('all' = unrestricted)");
  sub.add_option("--collective", a->runs.collectives,
                 std::string(kCollectiveFlagHelp) +
                     " of each run ('' or none: the one the log names or its table shows)");
  sub.add_option("--cluster", a->runs.clusters,
                 "cluster JSON of each run instead of --instance (e.g. `emulate up`'s)");
  sub.add_option("--params", a->params, "comma list of parameters to fit (default: all fittable)");
  sub.add_option("--link-params", a->link_params,
                 "link parameters to fit from runs of topotune's algorithms, e.g. "
                 "network.efficiency,network.latency_us (default: every class used)");
  sub.add_option("--start", a->start, "start from this calibration instead of the defaults")
      ->check(non_empty_path());
  sub.add_option("--rounds", a->rounds, "coordinate-descent passes (default 60)");
  sub.add_option("--description", a->description, "description stored in the output file");
  sub.add_option("-o,--output", a->output, "calibration file to write")
      ->required()
      ->check(non_empty_path());
  add_format_option(sub, a->format, {OutputFormat::Table, OutputFormat::Csv},
                    "table (default) or csv (each fit's runs: median |busbw error| before and "
                    "after, one row each)");
  return [a](std::ostream& out) { return run_calibrate(*a, out); };
}

}  // namespace topotune::cli
