// What calibrate reports around a fit: which parameters the runs determine, each run's error
// before and after, and parameters that ended at a bound.

#include "calibration/fit_report.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "calibration/param_selection.h"
#include "tests/nccl/test_systems.h"

namespace topotune::tune {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

CalibrationCase synthetic(const algo::NcclSystem& s, const algo::NcclModelParams& truth,
                          int sizes = 12) {
  CalibrationCase c;
  c.name = s.instance + " x " + std::to_string(s.nodes);
  c.system = s;
  std::int64_t b = 1024;
  for (int i = 0; i < sizes; ++i, b *= 4) c.points.push_back({Bytes(b), 0});
  const std::vector<double> t = predict_case(c, truth).value();
  for (std::size_t i = 0; i < t.size(); ++i) c.points[i].time_us = t[i];
  return c;
}

TEST(ParamSelection, OneHostDeterminesNoNetworkParameter) {
  // A single DGX A100: NVLink only. Its NVLink efficiency moves the loss, InfiniBand's does not.
  const std::vector<CalibrationCase> cases = {
      synthetic(algo::testing::dgx_a100(1), algo::default_params())};
  const auto sel = select_fit_params(cases, algo::default_params(), {});
  ASSERT_TRUE(sel) << sel.error().message;
  EXPECT_TRUE(contains(sel->fit, "nvlink_efficiency"));
  for (const algo::ParamInfo& p : algo::param_table()) {
    if (!p.fittable || p.name.rfind("net_efficiency.", 0) != 0) continue;
    EXPECT_TRUE(contains(sel->undetermined, p.name)) << p.name;
    EXPECT_FALSE(contains(sel->fit, p.name)) << p.name;
  }
  // Asked for by name, an undetermined parameter is an error; an unknown one is calibrate's.
  const auto asked =
      select_fit_params(cases, algo::default_params(), {"net_efficiency.infiniband"});
  ASSERT_FALSE(asked);
  EXPECT_NE(asked.error().message.find("cannot determine 'net_efficiency.infiniband'"),
            std::string::npos);
  const auto unknown = select_fit_params(cases, algo::default_params(), {"no_such"});
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->fit, std::vector<std::string>{"no_such"});
}

TEST(ParamSelection, NoMoreParametersThanSizes) {
  const std::vector<CalibrationCase> many = {
      synthetic(algo::testing::dgx_a100(2), algo::default_params())};
  const auto all = select_fit_params(many, algo::default_params(), {});
  ASSERT_TRUE(all);
  ASSERT_GT(all->fit.size(), 1u);
  const std::vector<CalibrationCase> one = {
      synthetic(algo::testing::dgx_a100(2), algo::default_params(), 1)};
  const auto refused = select_fit_params(one, algo::default_params(), {});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("but only 1 measured sizes"), std::string::npos);
}

TEST(FitReport, ErrorsBeforeAndAfterPerRun) {
  algo::NcclModelParams truth = algo::default_params();
  truth.nvlink_efficiency = 0.5;  // the runs are slower than the defaults say
  const std::vector<CalibrationCase> cases = {synthetic(algo::testing::dgx_a100(1), truth)};
  const std::vector<FitComparison> rows = compare_nccl_fit(cases, algo::default_params(), truth);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].name, "dgx-a100 x 1");
  EXPECT_GT(rows[0].before.median_large, 0.05);
  EXPECT_NEAR(rows[0].after.median_large, 0.0, 1e-9);
  EXPECT_NEAR(rows[0].after.max_small, 0.0, 1e-9);
}

TEST(FitReport, LinkRunsAgainstTheirOwnStartAndTheFit) {
  LinkFitCase c;
  c.name = "p4d x 2";
  c.cluster = *topo::make_cluster_spec("p4d.24xlarge", 2);
  for (std::int64_t b = 1 << 20; b <= (std::int64_t{1} << 26); b *= 4) {
    c.points.push_back({"ring", Bytes(b), sched::DataType::F32, 0});
  }
  LinkFitResult fit;
  fit.params = c.cluster.link_params;
  fit.params[static_cast<int>(topo::LinkKind::Network)].efficiency *= 0.5;
  const std::vector<double> truth = predict_link_case(c, fit.params).value();
  for (std::size_t i = 0; i < truth.size(); ++i) c.points[i].time_us = truth[i];
  const auto rows = compare_link_fit({c}, fit);
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_GT((*rows)[0].before.median_large, 0.05);
  EXPECT_NEAR((*rows)[0].after.median_large, 0.0, 1e-9);
}

TEST(FitReport, ValuesAndBoundsOfTheFittedParameters) {
  const algo::ParamInfo* nvlink = algo::find_param("nvlink_efficiency");
  ASSERT_NE(nvlink, nullptr);
  CalibrationResult r;
  r.params = algo::default_params();
  r.params.nvlink_efficiency = nvlink->min;
  r.params.pcie_efficiency = 0.6;  // inside its range
  r.fitted = {"pcie_efficiency", "nvlink_efficiency"};
  const std::vector<FittedValue> values = fitted_values(r);
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0].name, "pcie_efficiency");
  EXPECT_EQ(values[0].value, 0.6);
  const std::vector<BoundHit> hits = params_at_bounds(r);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].name, "nvlink_efficiency");
  EXPECT_TRUE(hits[0].lower);
  EXPECT_EQ(hits[0].value, nvlink->min);
  r.params.nvlink_efficiency = nvlink->max;
  ASSERT_EQ(params_at_bounds(r).size(), 1u);
  EXPECT_FALSE(params_at_bounds(r)[0].lower);
}

}  // namespace
}  // namespace topotune::tune
