#pragma once
// Which NCCL-model parameters a calibration can fit from the runs it is given: a parameter is
// determined when scaling it by 20 % moves the loss (some run's prediction depends on it).
// Asking for one the runs cannot determine, or for more parameters than they have sizes, is an
// error; by default the undetermined ones are left at their start values.

#include <string>
#include <vector>

#include "algorithms/nccl/nccl_params.h"
#include "calibration/calibration.h"
#include "core/expected.h"

namespace topotune::tune {

/// The parameters a fit will move, and those it leaves alone.
struct ParamSelection {
  std::vector<std::string> fit;           ///< as asked, or every fittable one the runs determine
  std::vector<std::string> undetermined;  ///< of the default list: kept at their start values
};

/// Selects from `asked` (empty: every fittable parameter of algo::param_table()). A name that
/// is not a fittable parameter stays in `fit`: calibrate() names the error.
Expected<ParamSelection> select_fit_params(const std::vector<CalibrationCase>& cases,
                                           const algo::NcclModelParams& start,
                                           const std::vector<std::string>& asked);

}  // namespace topotune::tune
