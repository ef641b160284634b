#pragma once
// validate's result model and its renderings through the reporters (cli/reporter.h), one
// row declaration for all three: the table (title, warnings, one row per size, the acceptance
// summaries, the health verdict), CSV (the rows) and JSON (the run and the warnings, the rows,
// then the summaries, the verdict and the plot's path); and --plot.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "algorithms/schedule/collective_spec.h"
#include "calibration/validation.h"
#include "cli/busbw_plot.h"
#include "cli/output_format.h"
#include "core/expected.h"

namespace topotune::cli {

/// The result of a validate run.
struct ValidateReport {
  std::string instance;  ///< the cluster's instance
  int nodes = 0, ranks = 0;
  sched::Collective collective = sched::Collective::Allreduce;
  std::string nccl_version;           ///< the release the NCCL rows were predicted as
  std::vector<std::string> warnings;  ///< log contradictions (table and JSON)
  std::vector<tune::ValidationRow> rows;
  std::optional<std::string> verdict;  ///< nccl-tests logs: the health verdict's text
  std::string plot;                    ///< --plot's path, once written ("" when none)
};

/// Renders `report` as `format` says (table, CSV or JSON).
void print_validate_report(const ValidateReport& report, OutputFormat format, std::ostream& out);

/// --plot's image format from the file name (.svg or .png); checked before any work.
Expected<PlotFormat> plot_format(const std::string& path);

/// Draws the rows' measured and predicted busbw with gnuplot (one series per algorithm) and
/// writes the image to `path` atomically.
Expected<void> plot_validation(const std::vector<tune::ValidationRow>& rows,
                               const std::string& path, const std::string& title);

}  // namespace topotune::cli
