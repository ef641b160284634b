#pragma once
// Validation: a measured run compared, size by size, with what topotune predicts for it
// (`topotune validate`). Each row is predicted by the model of the algorithm it ran: `nccl`
// rows by the NCCL predictor, rows of topotune's algorithms (ring, tree, rhd, ps,
// hierarchical, with the options `measure` recorded) by their own schedule on the flow
// simulator, `mpi` rows by the Open MPI allreduce model (SchedulePredictor, simulated rhd).
// Errors are nccl-tests busbw errors (calibration.h's busbw_error), summarised per size class.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/nccl/nccl_predictor.h"
#include "algorithms/schedule/collective_spec.h"
#include "calibration/calibration.h"
#include "core/expected.h"
#include "measurement/measurement.h"
#include "timing/schedule_predictor.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// The model that predicts a measured row.
enum class RowModel {
  Nccl,      ///< NCCL's own allreduce: the NCCL predictor's choice and time
  OpenMpi,   ///< Open MPI's own: the algorithm its coll/tuned picks, simulated
  Schedule,  ///< one of topotune's algorithms: its own schedule on the flow simulator
};

/// The one place a row's algorithm name (as `measure` and nccl-tests logs write it) picks its
/// model: "nccl", "mpi", anything else a schedule generator's name.
RowModel row_model(const std::string& algorithm);

/// One compared size.
struct ValidationRow {
  std::int64_t bytes = 0;
  std::string algorithm;  ///< what the row ran
  double measured_us = 0, predicted_us = 0;
  double measured_busbw = 0, predicted_busbw = 0;  ///< GB/s
  double error = 0;                                ///< busbw_error(measured, predicted)
  std::string model;  ///< what predicted it: NCCL's choice "ring/LL128", "simulated schedule"
};

/// Predicts rows with their model. The schedule simulator is built on first use (a log of
/// NCCL rows needs no topology).
class RowPredictor {
 public:
  /// Supplies the simulator's memory budget when it is first needed.
  using BudgetFn = std::function<Expected<algo::MemoryBudget>()>;

  /// `nccl` must outlive the predictor; `cluster` carries any calibrated link parameters.
  RowPredictor(const algo::NcclPredictor& nccl, topo::ClusterSpec cluster, int channels, int chunks,
               BudgetFn budget);

  /// The predicted time of `algorithm` for `spec` (µs) and the model's description.
  Expected<std::pair<double, std::string>> predict(const std::string& algorithm,
                                                   const sched::CollectiveSpec& spec);

 private:
  const algo::NcclPredictor& nccl_;
  topo::ClusterSpec cluster_;
  int channels_ = 1;
  int chunks_ = 1;
  BudgetFn budget_;
  std::optional<SchedulePredictor> schedules_;
};

/// Every row of `run` with a size and a time > 0, in the file's order, predicted and compared.
/// Rows of `mpi` at sizes where Open MPI runs a reduce-scatter or allgather algorithm with no
/// schedule here (timing/schedule_predictor.h) are left out, one sentence per reason in
/// `unmodelled` (when given). Fails when no row is left, or when a row cannot be predicted (an
/// unknown algorithm, a schedule too large).
Expected<std::vector<ValidationRow>> compare_run(const rt::Measurement& run,
                                                 RowPredictor& predictor,
                                                 std::vector<std::string>* unmodelled = nullptr);

/// The rows' algorithms in first-seen order (deterministic: the file's order).
std::vector<std::string> algorithms_of(const std::vector<ValidationRow>& rows);

/// The summary of the rows whose algorithm is `algorithm` ("" = every row).
ErrorSummary summary_of(const std::vector<ValidationRow>& rows, const std::string& algorithm);

}  // namespace topotune::tune
