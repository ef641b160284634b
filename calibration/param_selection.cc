#include "calibration/param_selection.h"

#include <algorithm>
#include <cmath>

namespace topotune::tune {

Expected<ParamSelection> select_fit_params(const std::vector<CalibrationCase>& cases,
                                           const algo::NcclModelParams& start,
                                           const std::vector<std::string>& asked) {
  std::vector<std::string> names = asked;
  if (names.empty()) {
    for (const algo::ParamInfo& p : algo::param_table())
      if (p.fittable) names.push_back(p.name);
  }
  TT_TRY(const double base, calibration_loss(cases, start));
  ParamSelection sel;
  for (const std::string& name : names) {
    const algo::ParamInfo* info = algo::find_param(name);
    if (!info || !info->fittable) {
      sel.fit.push_back(name);  // calibrate names the error
      continue;
    }
    algo::NcclModelParams probe = start;
    double& v = *info->ref(probe);
    v = std::clamp(v * 1.2 > info->max ? v / 1.2 : v * 1.2, info->min, info->max);
    TT_TRY(const double moved, calibration_loss(cases, probe));
    if (std::abs(moved - base) > 1e-12 * std::max(1.0, base)) {
      sel.fit.push_back(name);
    } else if (!asked.empty()) {
      return fail(Errc::InvalidArgument,
                  "the logs cannot determine '" + name + "' (no run's prediction depends on it)");
    } else {
      sel.undetermined.push_back(name);
    }
  }
  std::size_t sizes = 0;
  for (const CalibrationCase& c : cases) sizes += c.points.size();
  if (sel.fit.size() > sizes) {
    return fail(Errc::InvalidArgument, std::to_string(sel.fit.size()) + " parameters but only " +
                                           std::to_string(sizes) +
                                           " measured sizes: give fewer with --params");
  }
  return sel;
}

}  // namespace topotune::tune
