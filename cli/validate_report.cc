#include "cli/validate_report.h"

#include <filesystem>

#include "cli/reporter.h"
#include "core/file_output.h"
#include "core/string_printf.h"

namespace topotune::cli {
namespace {

const std::vector<Column>& validate_columns() {
  static const std::vector<Column> columns = {{"bytes", "%12lld"},
                                              {"algorithm", "  %-18s"},
                                              {"measured_us", "  %10.2f"},
                                              {"predicted_us", "  %10.2f"},
                                              {"measured_busbw_GBps", "  %10.2f"},
                                              {"predicted_busbw_GBps", "  %10.2f"},
                                              {"error_pct", "  %+6.1f"},
                                              {"predicted_by", "  %s"}};
  return columns;
}

// An acceptance summary is a row of its own: one size class of the rows of one algorithm
// ("" = every row), a line of the table's footer and an object of the JSON's "summaries".
const std::vector<Column>& summary_columns() {
  static const std::vector<Column> columns = {
      {"label", "# %s", false},
      {"algorithm", ""},
      {"size_class", ""},
      {"size_class_text", "sizes %s: ", false},
      {"sizes", "%2lld"},
      {"median_abs_error_pct", ", median |busbw error| %5.1f%%"},
      {"max_abs_error_pct", ", max %6.1f%%"}};
  return columns;
}

/// The summary rows of `algorithm` ("" = every row); for one algorithm's rows empty size
/// classes are left out.
void add_summary(std::vector<std::vector<Cell>>& rows, const tune::ErrorSummary& s,
                 const std::string& algorithm) {
  const std::string label = algorithm.empty() ? "" : algorithm + ": ";
  if (algorithm.empty() || s.count_large > 0) {
    rows.push_back({label, algorithm, std::string("large"), std::string(">= 1 MiB"),
                    std::int64_t{s.count_large}, 100 * s.median_large, 100 * s.max_large});
  }
  if (algorithm.empty() || s.count_small > 0) {
    rows.push_back({label, algorithm, std::string("small"), std::string("<  1 MiB"),
                    std::int64_t{s.count_small}, 100 * s.median_small, 100 * s.max_small});
  }
}

std::vector<std::vector<Cell>> summaries_of(const ValidateReport& r) {
  std::vector<std::vector<Cell>> rows;
  add_summary(rows, tune::summary_of(r.rows, ""), "");
  const std::vector<std::string> algorithms = tune::algorithms_of(r.rows);
  if (algorithms.size() > 1) {
    for (const std::string& name : algorithms)
      add_summary(rows, tune::summary_of(r.rows, name), name);
  }
  return rows;
}

std::vector<std::string> footer_of(const ValidateReport& r,
                                   const std::vector<std::vector<Cell>>& summaries) {
  std::vector<std::string> lines;
  for (const std::vector<Cell>& s : summaries) lines.push_back(table_line(summary_columns(), s));
  if (r.verdict) lines.push_back("# verdict: " + *r.verdict + "\n");
  if (!r.plot.empty()) lines.push_back("# plot written to " + r.plot + "\n");
  return lines;
}

nlohmann::ordered_json json_tail(const ValidateReport& r,
                                 const std::vector<std::vector<Cell>>& summaries) {
  nlohmann::ordered_json tail = {{"summaries", nlohmann::ordered_json::array()}};
  for (const std::vector<Cell>& s : summaries)
    tail["summaries"].push_back(json_row(summary_columns(), s));
  if (r.verdict) tail["verdict"] = *r.verdict;
  if (!r.plot.empty()) tail["plot"] = r.plot;
  return tail;
}

}  // namespace

void print_validate_report(const ValidateReport& r, OutputFormat format, std::ostream& out) {
  const std::string title = "# topotune validate: " + r.instance + " x " + std::to_string(r.nodes) +
                            " node(s), " + std::to_string(r.ranks) + " ranks, " +
                            sched::collective_name(r.collective) + ", NCCL " + r.nccl_version +
                            "\n";
  TableLayout layout{{title},
                     validate_columns(),
                     {{"instance", r.instance},
                      {"nodes", r.nodes},
                      {"ranks", r.ranks},
                      {"collective", sched::collective_name(r.collective)},
                      {"nccl_version", r.nccl_version},
                      {"warnings", r.warnings}}};
  for (const std::string& w : r.warnings) layout.preamble.push_back("# warning: " + w + "\n");
  layout.preamble.push_back(
      "#       size  algorithm            meas time   pred time  meas busbw  pred busbw   error"
      "  predicted by\n");
  layout.preamble.push_back(
      "#        (B)                            (us)        (us)      (GB/s)      (GB/s)     (%)"
      "  (NCCL: algo/proto)\n");
  const std::unique_ptr<Reporter> reporter = Reporter::make(format, out);
  reporter->begin(layout);
  for (const tune::ValidationRow& row : r.rows) {
    reporter->row({row.bytes, row.algorithm, row.measured_us, row.predicted_us, row.measured_busbw,
                   row.predicted_busbw, 100 * row.error, row.model});
  }
  const std::vector<std::vector<Cell>> summaries = summaries_of(r);
  reporter->end(footer_of(r, summaries), json_tail(r, summaries));
}

Expected<PlotFormat> plot_format(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".svg") return PlotFormat::Svg;
  if (ext == ".png") return PlotFormat::Png;
  return fail(Errc::InvalidArgument, "--plot needs a .svg or .png file name, got '" + path + "'");
}

Expected<void> plot_validation(const std::vector<tune::ValidationRow>& rows,
                               const std::string& path, const std::string& title) {
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

}  // namespace topotune::cli
