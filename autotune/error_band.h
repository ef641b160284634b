#pragma once
// How far a predicted step may be off, and so how large a gain must be before the plan
// recommends changing anything. The NCCL model's held-out error is measured, not assumed:
// `python3 scripts/accuracy.py` refits the model without each validation entry and predicts
// it; the median |busbw error| over the rows >= 1 MiB is the figure below (that script checks
// that this constant still matches what it measures). A step's band is that error applied to
// every collective of the step (StepResult::comm_busy): the most the step can move if each
// allreduce is off by it. A change is advised only when its gain exceeds the bands of both
// steps it compares.

#include "autotune/tuner.h"
#include "core/units.h"

namespace topotune::tune {

/// Leave-one-out median |busbw error| of the NCCL model over the 273 rows >= 1 MiB of
/// data/validation (python3 scripts/accuracy.py: "leave-one-out: median |busbw error| over
/// all 273 rows >= 1 MiB 7.6%").
inline constexpr double kHeldOutCollectiveError = 0.076;

/// +- seconds on `c`'s predicted step: kHeldOutCollectiveError of its collectives' time.
inline Seconds error_band(const Candidate& c) {
  return Seconds(kHeldOutCollectiveError * c.step.comm_busy.value);
}

/// True when `pick` is faster than `defaults` by more than both steps' error bands together
/// and by more than `margin` of the defaults' step.
inline bool beats_beyond_band(const Candidate& pick, const Candidate& defaults, double margin) {
  const double gain = defaults.step.step.value - pick.step.step.value;
  return gain > margin * defaults.step.step.value &&
         gain > error_band(pick).value + error_band(defaults).value;
}

}  // namespace topotune::tune
