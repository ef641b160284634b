#include "cli/calibrate_report.h"

namespace topotune::cli {
namespace {

// The runs' median |busbw error| in percent; `fit` is CSV-only (the table's lines say it).
const std::vector<Column>& comparison_columns() {
  static const std::vector<Column> columns = {
      {"fit", ""},
      {"run", "%-44s"},
      {"median_err_pct_large_before", " %6.1f%%"},
      {"median_err_pct_large_after", " -> %5.1f%%"},
      {"median_err_pct_small_before", "               %6.1f%%"},
      {"median_err_pct_small_after", " -> %5.1f%%"}};
  return columns;
}

constexpr const char* kComparisonHeader =
    "# run                                        median|err| >=1MiB (before -> after)   "
    "<1MiB (before -> after)\n";

std::vector<Cell> cells(const std::string& fit, const tune::FitComparison& c) {
  return {fit,
          c.name,
          100 * c.before.median_large,
          100 * c.after.median_large,
          100 * c.before.median_small,
          100 * c.after.median_small};
}

}  // namespace

CalibrateReport::CalibrateReport(OutputFormat format, std::ostream& out)
    : format_(format), out_(out) {}

void CalibrateReport::note(const std::string& line) {
  if (format_ == OutputFormat::Table) out_ << line;
}

void CalibrateReport::fit(const FitSummary& f) {
  if (format_ == OutputFormat::Csv) {
    if (!csv_) {
      csv_ = Reporter::make(OutputFormat::Csv, out_);
      csv_->begin({{}, comparison_columns()});
    }
    for (const tune::FitComparison& c : f.runs) csv_->row(cells(f.fit, c));
    return;
  }
  const std::unique_ptr<Reporter> table = Reporter::make(OutputFormat::Table, out_);
  std::vector<std::string> above = f.above;
  above.push_back(kComparisonHeader);
  table->begin({above, comparison_columns()});
  for (const tune::FitComparison& c : f.runs) table->row(cells(f.fit, c));
  table->end(f.below);
}

void CalibrateReport::written(const std::string& path) {
  if (csv_) csv_->end();
  note("# written to " + path + "\n");
}

}  // namespace topotune::cli
