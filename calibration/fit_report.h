#pragma once
// What a calibration changed, for its report: each run's |busbw error| before and after the
// fit, the fitted values, and the parameters that ended at a bound of their physical range
// (the runs ask for more than the range allows, so another part of the model does not fit).

#include <string>
#include <vector>

#include "calibration/calibration.h"
#include "calibration/link_fit.h"
#include "core/expected.h"

namespace topotune::tune {

/// One run's errors with the start parameters and with the fitted ones.
struct FitComparison {
  std::string name;
  ErrorSummary before, after;
};

/// Every NCCL run's comparison; a run the model cannot predict is left out.
std::vector<FitComparison> compare_nccl_fit(const std::vector<CalibrationCase>& cases,
                                            const algo::NcclModelParams& before,
                                            const algo::NcclModelParams& after);

/// Every link-class run's comparison: its own link parameters against the fitted ones.
Expected<std::vector<FitComparison>> compare_link_fit(const std::vector<LinkFitCase>& cases,
                                                      const LinkFitResult& fit);

/// A fitted parameter and its value.
struct FittedValue {
  std::string name;
  double value = 0;
};

/// The fitted parameters' values, in the order they were fitted.
std::vector<FittedValue> fitted_values(const CalibrationResult& result);

/// The fitted parameters within 0.1 % of a bound; `lower` tells which.
struct BoundHit {
  std::string name;
  bool lower = false;
  double value = 0;
};
std::vector<BoundHit> params_at_bounds(const CalibrationResult& result);

}  // namespace topotune::tune
