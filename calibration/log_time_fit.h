#pragma once
// The fitting machinery both calibrations share (calibration/calibration.* for the NCCL model,
// calibration/link_fit.* for the link classes): the per-run loss on log-time, and a bounded,
// deterministic coordinate descent in log-parameter space.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/expected.h"

namespace topotune::tune {

/// Mean squared log(measured / predicted) time over one run's points (each with `bytes` and
/// `time_us`), sizes >= 1 MiB weighing twice (the bandwidth regime is where plans are decided).
/// Points without a positive size, measurement or prediction are skipped; nullopt if none is
/// left.
template <class Point>
std::optional<double> run_log_time_error(const std::vector<Point>& points,
                                         const std::vector<double>& predicted_us) {
  double sum = 0, weight = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].bytes.value <= 0 || points[i].time_us <= 0 || predicted_us[i] <= 0) continue;
    const double e = std::log(points[i].time_us / predicted_us[i]);
    const double w = points[i].bytes.value >= (std::int64_t{1} << 20) ? 2.0 : 1.0;
    sum += w * e * e;
    weight += w;
  }
  if (weight == 0) return std::nullopt;
  return sum / weight;
}

/// Mean over runs of run_log_time_error(run.points, predict(run)), so that a long sweep does
/// not outweigh a short one; runs without a usable point are skipped. InvalidArgument if none
/// is left.
template <class Run, class Predict>
Expected<double> mean_log_time_loss(const std::vector<Run>& runs, const Predict& predict) {
  double total = 0;
  int used = 0;
  for (const Run& r : runs) {
    TT_TRY(const std::vector<double> pred, predict(r));
    const std::optional<double> e = run_log_time_error(r.points, pred);
    if (!e) continue;
    total += *e;
    ++used;
  }
  if (used == 0) return fail(Errc::InvalidArgument, "no measured points to fit");
  return total / used;
}

/// Coordinate descent over `free` parameters of `params`: each in turn is multiplied by
/// e^(±step) (`scaled(params, k, factor)` returns the moved copy, clamping as it must); a move
/// that lowers `loss(params)` is kept and its step grows ×1.5, otherwise the step halves. Stops
/// after `max_rounds` passes or when every step is below 1e-3. Starts at `best` = the loss of
/// `params`; returns the final loss; counts loss evaluations in `evaluations`.
template <class Params, class Scaled, class Loss>
Expected<double> log_coordinate_descent(Params& params, std::size_t free, int max_rounds,
                                        double best, const Scaled& scaled, const Loss& loss,
                                        int& evaluations) {
  std::vector<double> step(free, 0.4);
  for (int round = 0; round < max_rounds && free > 0; ++round) {
    for (std::size_t k = 0; k < free; ++k) {
      bool moved = false;
      for (const double dir : {1.0, -1.0}) {
        Params trial = scaled(params, k, std::exp(dir * step[k]));
        TT_TRY(const double l, loss(trial));
        ++evaluations;
        if (l < best - 1e-12) {
          best = l;
          params = std::move(trial);
          moved = true;
          break;
        }
      }
      step[k] = moved ? step[k] * 1.5 : step[k] * 0.5;
    }
    if (*std::max_element(step.begin(), step.end()) < 1e-3) break;
  }
  return best;
}

}  // namespace topotune::tune
