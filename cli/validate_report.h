#pragma once
// validate's result model and its renderings: the table (title, warnings, one row per size,
// the acceptance summaries, the health verdict) and CSV (the rows) reporters, and --plot.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "calibration/validation.h"
#include "cli/busbw_plot.h"
#include "cli/output_format.h"
#include "core/expected.h"

namespace topotune::cli {

/// The result of a validate run.
struct ValidateReport {
  std::string title;                  ///< "topotune validate: <cluster>, ..." (table only)
  std::vector<std::string> warnings;  ///< log contradictions (table only)
  std::vector<tune::ValidationRow> rows;
  std::optional<std::string> verdict;  ///< nccl-tests logs: the health verdict's text
  std::string plot;                    ///< --plot's path, once written ("" when none)
};

/// Renders `report` as `format` says (table or CSV).
void print_validate_report(const ValidateReport& report, OutputFormat format, std::ostream& out);

/// --plot's image format from the file name (.svg or .png); checked before any work.
Expected<PlotFormat> plot_format(const std::string& path);

/// Draws the rows' measured and predicted busbw with gnuplot (one series per algorithm) and
/// writes the image to `path` atomically.
Expected<void> plot_validation(const std::vector<tune::ValidationRow>& rows,
                               const std::string& path, const std::string& title);

}  // namespace topotune::cli
