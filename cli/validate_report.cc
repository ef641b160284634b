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

/// The acceptance summary; with a `prefix` (one algorithm's rows) empty size classes are left
/// out.
void add_summary(std::vector<std::string>& lines, const tune::ErrorSummary& s,
                 const std::string& prefix) {
  if (prefix.empty() || s.count_large > 0) {
    lines.push_back(
        string_printf("# %ssizes >= 1 MiB: %2d, median |busbw error| %5.1f%%, max %6.1f%%\n",
                      prefix.c_str(), s.count_large, 100 * s.median_large, 100 * s.max_large));
  }
  if (prefix.empty() || s.count_small > 0) {
    lines.push_back(
        string_printf("# %ssizes <  1 MiB: %2d, median |busbw error| %5.1f%%, max %6.1f%%\n",
                      prefix.c_str(), s.count_small, 100 * s.median_small, 100 * s.max_small));
  }
}

std::vector<std::string> footer_of(const ValidateReport& r) {
  std::vector<std::string> lines;
  add_summary(lines, tune::summary_of(r.rows, ""), "");
  const std::vector<std::string> algorithms = tune::algorithms_of(r.rows);
  if (algorithms.size() > 1) {
    for (const std::string& name : algorithms) {
      add_summary(lines, tune::summary_of(r.rows, name), name + ": ");
    }
  }
  if (r.verdict) lines.push_back("# verdict: " + *r.verdict + "\n");
  if (!r.plot.empty()) lines.push_back("# plot written to " + r.plot + "\n");
  return lines;
}

}  // namespace

void print_validate_report(const ValidateReport& r, OutputFormat format, std::ostream& out) {
  TableLayout layout{{"# " + r.title + "\n"}, validate_columns()};
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
  reporter->end(footer_of(r));
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
