#include "calibration/fit_report.h"

namespace topotune::tune {
namespace {

/// |busbw error| summaries of `points` against two predictions of them.
FitComparison compare(const std::string& name, const std::vector<MeasuredPoint>& points,
                      const std::vector<double>& before, const std::vector<double>& after) {
  std::vector<double> eb, ef;
  for (std::size_t i = 0; i < points.size(); ++i) {
    eb.push_back(busbw_error(points[i].time_us, before[i]));
    ef.push_back(busbw_error(points[i].time_us, after[i]));
  }
  return {name, summarize_errors(points, eb), summarize_errors(points, ef)};
}

}  // namespace

std::vector<FitComparison> compare_nccl_fit(const std::vector<CalibrationCase>& cases,
                                            const algo::NcclModelParams& before,
                                            const algo::NcclModelParams& after) {
  std::vector<FitComparison> out;
  for (const CalibrationCase& c : cases) {
    const auto b = predict_case(c, before), f = predict_case(c, after);
    if (!b || !f) continue;
    out.push_back(compare(c.name, c.points, *b, *f));
  }
  return out;
}

Expected<std::vector<FitComparison>> compare_link_fit(const std::vector<LinkFitCase>& cases,
                                                      const LinkFitResult& fit) {
  std::vector<FitComparison> out;
  for (const LinkFitCase& c : cases) {
    TT_TRY(const std::vector<double> before, predict_link_case(c, c.cluster.link_params));
    TT_TRY(const std::vector<double> after, predict_link_case(c, fit.params));
    std::vector<MeasuredPoint> points;
    for (const LinkFitPoint& p : c.points) points.push_back({p.bytes, p.time_us});
    out.push_back(compare(c.name, points, before, after));
  }
  return out;
}

std::vector<FittedValue> fitted_values(const CalibrationResult& result) {
  algo::NcclModelParams copy = result.params;
  std::vector<FittedValue> out;
  for (const std::string& name : result.fitted) {
    out.push_back({name, *algo::find_param(name)->ref(copy)});
  }
  return out;
}

std::vector<BoundHit> params_at_bounds(const CalibrationResult& result) {
  std::vector<BoundHit> out;
  for (const FittedValue& f : fitted_values(result)) {
    const algo::ParamInfo* info = algo::find_param(f.name);
    const bool lo = f.value <= info->min * (1 + 1e-3), hi = f.value >= info->max * (1 - 1e-3);
    if (lo || hi) out.push_back({f.name, lo, f.value});
  }
  return out;
}

}  // namespace topotune::tune
