#pragma once
// predict's result model and its renderings through the table, CSV and JSON reporters
// (cli/reporter.h): one declaration of the row's columns; JSON adds the cluster as head fields
// and --explain's candidates as each row's "candidates".

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "algorithms/nccl/nccl_predictor.h"
#include "algorithms/schedule/collective_spec.h"
#include "cli/output_format.h"

namespace topotune::cli {

/// One predicted size, whichever model produced it.
struct PredictRow {
  std::int64_t bytes;
  double time_us, algbw, busbw;  ///< µs, GB/s, GB/s
  std::string algorithm, protocol;
  std::optional<algo::NcclPrediction> explained;  ///< --explain: every candidate NCCL weighed
};

/// The result of a predict run.
struct PredictReport {
  std::vector<std::string> title;  ///< the table's lines before the rows
  std::string instance;
  int nodes = 0, ranks = 0;
  sched::Collective collective = sched::Collective::Allreduce;
  std::vector<PredictRow> rows;
};

/// Renders `report` as `format` says (table, CSV or JSON).
void print_predict_report(const PredictReport& report, OutputFormat format, std::ostream& out);

}  // namespace topotune::cli
