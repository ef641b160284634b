#pragma once
// calibrate's report through the reporters (cli/reporter.h), written as the fits end (a fit
// can take minutes): each fit's runs, one row each, with their median |busbw error| before
// and after the fit for sizes >= 1 MiB and below. The table reporter prints each fit's lines
// (its loss, the comparison header; below the rows, the bound warnings and the fitted values
// or link parameters) around its rows, and the notes and the written file as they come; the
// CSV reporter prints one header, then every fit's rows, the fit named in its first column.

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "calibration/fit_report.h"
#include "cli/output_format.h"
#include "cli/reporter.h"

namespace topotune::cli {

/// One fit's report.
struct FitSummary {
  std::string fit;                 ///< "nccl" or "links"
  std::vector<std::string> above;  ///< table-only lines before the comparison header
  std::vector<tune::FitComparison> runs;
  std::vector<std::string> below;  ///< table-only lines after the runs
};

/// Writes calibrate's report in the table or CSV format, part by part.
class CalibrateReport {
 public:
  CalibrateReport(OutputFormat format, std::ostream& out);
  /// A table-only line, written now (e.g. the parameters the logs do not determine).
  void note(const std::string& line);
  /// One fit, written now.
  void fit(const FitSummary& summary);
  /// The end of the report: where the calibration file was written (table only).
  void written(const std::string& path);

 private:
  OutputFormat format_;
  std::ostream& out_;
  std::unique_ptr<Reporter> csv_;  ///< begun at the first fit
};

}  // namespace topotune::cli
