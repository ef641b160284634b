#pragma once
// Calibration: fits the NCCL predictor's physical parameters to measured runs.
//
// The objective is the mean squared error of log(measured time / predicted time), averaged per
// run first so that a long sweep does not outweigh a short one, and made robust across runs
// (each run's mean counts as s2 log(1 + m/s2), s2 = 0.2^2: a run the model cannot explain does
// not drag the shared parameters); within a run, sizes >= 1 MiB
// weigh twice (the bandwidth regime decides plans, and its acceptance bound is tighter). The
// optimiser is a bounded coordinate descent in log-parameter space (each parameter is multiplied up
// or down by a step that grows on success and halves on failure), started from the given
// parameters; it is deterministic and needs no derivatives, which suits a model with a discrete
// selection rule (the chosen algorithm can change when a parameter moves). Only parameters marked
// fittable in algo::param_table() move; NCCL's own constants stay as NCCL ships them.

#include <functional>
#include <string>
#include <vector>

#include "algorithms/nccl/nccl_params.h"
#include "algorithms/nccl/nccl_predictor.h"
#include "algorithms/nccl/nccl_system.h"
#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "core/units.h"

namespace topotune::tune {

/// One measured point: a size and its time (nccl-tests out-of-place time, µs).
struct MeasuredPoint {
  Bytes bytes{0};
  double time_us = 0;
};

/// One measured run: what it ran on, under which NCCL settings, and what it measured.
struct CalibrationCase {
  std::string name;
  algo::NcclSystem system;
  algo::NcclOptions options;
  sched::Collective collective = sched::Collective::Allreduce;
  std::vector<MeasuredPoint> points;
};

struct CalibrationOptions {
  std::vector<std::string> parameters;  ///< names to fit; empty = every fittable parameter
  int max_rounds = 60;                  ///< passes over the parameters
  /// Called after each loss evaluation with the number so far (each predicts every point of
  /// every case: about 500 evaluations of 10^5 points took 29 s). For a progress line; the
  /// library itself never prints.
  std::function<void(int evaluations)> on_evaluation;
};

/// |busbw error| statistics of one run, split at 1 MiB as the acceptance criterion is.
struct ErrorSummary {
  int count_large = 0;  ///< sizes >= 1 MiB
  int count_small = 0;  ///< 0 < size < 1 MiB
  double median_large = 0, max_large = 0;
  double median_small = 0, max_small = 0;
};

/// Relative busbw error of a prediction: predicted / measured - 1 (= t_meas / t_pred - 1).
double busbw_error(double measured_time_us, double predicted_time_us);

/// Summarises relative errors (signed) by size class; sizes of 0 bytes are skipped.
ErrorSummary summarize_errors(const std::vector<MeasuredPoint>& points,
                              const std::vector<double>& errors);

struct CalibrationResult {
  algo::NcclModelParams params;
  std::vector<std::string> fitted;  ///< names of the parameters that were free
  double loss_before = 0;           ///< mean squared log-time error at the start
  double loss_after = 0;
  int evaluations = 0;
};

/// Mean over cases of the robust per-run loss: s2 log(1 + m/s2), m = the run's mean squared
/// log(measured / predicted) time, s2 = 0.04.
Expected<double> calibration_loss(const std::vector<CalibrationCase>& cases,
                                  const algo::NcclModelParams& params);

/// Predicted time (µs) of every point of one case.
Expected<std::vector<double>> predict_case(const CalibrationCase& c,
                                           const algo::NcclModelParams& params);

/// Fits the parameters. Errors: no cases, no points, unknown or non-fittable parameter names.
Expected<CalibrationResult> calibrate(const std::vector<CalibrationCase>& cases,
                                      const algo::NcclModelParams& start,
                                      const CalibrationOptions& options);

}  // namespace topotune::tune
