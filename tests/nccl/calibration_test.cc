// Calibration: recovers parameters from synthetic measurements, refuses constants, and
// summarises errors as the acceptance criterion does.

#include "calibration/calibration.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/nccl/test_systems.h"

namespace topotune::tune {
namespace {

CalibrationCase synthetic(const algo::NcclSystem& s, const algo::NcclModelParams& truth) {
  CalibrationCase c;
  c.name = s.instance;
  c.system = s;
  for (std::int64_t b = 1024; b <= (std::int64_t{1} << 32); b *= 4)
    c.points.push_back({Bytes(b), 0});
  const std::vector<double> t = predict_case(c, truth).value();
  for (std::size_t i = 0; i < t.size(); ++i) c.points[i].time_us = t[i];
  return c;
}

TEST(Calibration, RecoversEfficienciesFromSyntheticRuns) {
  algo::NcclModelParams truth = algo::default_params();
  truth.nvlink_efficiency = 0.70;
  truth.net_efficiency[static_cast<int>(algo::NicClass::InfiniBand)] = 0.80;
  const std::vector<CalibrationCase> cases = {synthetic(algo::testing::dgx_a100(1), truth),
                                              synthetic(algo::testing::dgx_a100(4), truth)};
  CalibrationOptions opt;
  opt.parameters = {"nvlink_efficiency", "net_efficiency.infiniband"};
  opt.max_rounds = 200;
  const CalibrationResult r = calibrate(cases, algo::default_params(), opt).value();
  EXPECT_LT(r.loss_after, 1e-6);
  EXPECT_NEAR(r.params.nvlink_efficiency, 0.70, 0.01);
  EXPECT_NEAR(r.params.net_efficiency[static_cast<int>(algo::NicClass::InfiniBand)], 0.80, 0.01);
  EXPECT_GT(r.loss_before, r.loss_after);
}

TEST(Calibration, RefusesConstantsAndUnknownNames) {
  const std::vector<CalibrationCase> cases = {
      synthetic(algo::testing::p4d(1), algo::default_params())};
  CalibrationOptions opt;
  opt.parameters = {"pcie_efficiency"};  // an assumption, not fitted
  EXPECT_FALSE(calibrate(cases, algo::default_params(), opt).has_value());
  opt.parameters = {"no_such_parameter"};
  EXPECT_FALSE(calibrate(cases, algo::default_params(), opt).has_value());
  EXPECT_FALSE(calibrate({}, algo::default_params(), {}).has_value());
}

TEST(Calibration, ErrorSummarySplitsAtOneMiB) {
  // Sizes 0 (skipped), 512 KiB, 768 KiB, 1 MiB, 2 MiB, 4 MiB with errors 9, -0.1, 0.3, 0.2,
  // -0.05, 0.1: small = {-0.1, 0.3} -> median |.| 0.2, max 0.3; large = {0.2, -0.05, 0.1}
  // -> median 0.1, max 0.2.
  const std::vector<MeasuredPoint> pts = {{Bytes(0), 1},         {Bytes(512 << 10), 1},
                                          {Bytes(768 << 10), 1}, {Bytes(1 << 20), 1},
                                          {Bytes(2 << 20), 1},   {Bytes(4 << 20), 1}};
  const ErrorSummary s = summarize_errors(pts, {9, -0.1, 0.3, 0.2, -0.05, 0.1});
  EXPECT_EQ(s.count_small, 2);
  EXPECT_EQ(s.count_large, 3);
  EXPECT_DOUBLE_EQ(s.median_small, 0.2);
  EXPECT_DOUBLE_EQ(s.max_small, 0.3);
  EXPECT_DOUBLE_EQ(s.median_large, 0.1);
  EXPECT_DOUBLE_EQ(s.max_large, 0.2);
  // measured 150 us, predicted 100 us: predicted busbw is 1.5x the measured -> +50%.
  EXPECT_DOUBLE_EQ(busbw_error(150, 100), 0.5);
}

// data/nccl_model.json is the one source of the parameters (compiled in): it sets every
// parameter with its source, and the built-in set is that file as it is in the tree now.
TEST(NcclModelFile, DataFileIsTheBuiltInParameterSet) {
  std::ifstream in(std::string(TOPOTUNE_TEST_DATA_DIR) + "/nccl_model.json");
  ASSERT_TRUE(in) << "data/nccl_model.json missing";
  std::ostringstream ss;
  ss << in.rdbuf();
  const nlohmann::json file = nlohmann::json::parse(ss.str());
  ASSERT_EQ(file.at("parameters").size(), algo::param_table().size());
  const algo::NcclModelParams loaded =
      algo::params_from_json(ss.str(), "nccl_model.json", algo::NcclModelParams{}).value();
  algo::NcclModelParams a = loaded, b = algo::default_params();
  for (const algo::ParamInfo& info : algo::param_table()) {
    EXPECT_DOUBLE_EQ(*info.ref(a), *info.ref(b)) << info.name;
    EXPECT_EQ(info.source, file.at("parameters").at(info.name).at("source")) << info.name;
    EXPECT_FALSE(info.source.empty()) << info.name;
  }
}

TEST(NcclModelFile, RejectsTyposAndBadValues) {
  const auto& d = algo::default_params();
  EXPECT_FALSE(algo::params_from_json("{}", "f", d).has_value());
  EXPECT_FALSE(
      algo::params_from_json(
          R"({"schema":"topotune.nccl_model/2","parameters":{"nvlink_eficiency":1}})", "f", d)
          .has_value());
  EXPECT_FALSE(
      algo::params_from_json(
          R"({"schema":"topotune.nccl_model/2","parameters":{"nvlink_efficiency":"x"}})", "f", d)
          .has_value());
  const auto ok = algo::params_from_json(
      R"({"schema":"topotune.nccl_model/2","parameters":{"nvlink_efficiency":{"value":0.5}}})", "f",
      d);
  ASSERT_TRUE(ok.has_value());
  EXPECT_DOUBLE_EQ(ok->nvlink_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(ok->nvls_efficiency, d.nvls_efficiency);  // untouched
  // A file of the older model (schema 1) names parameters this model does not have.
  const auto old = algo::params_from_json(
      R"({"schema":"topotune.nccl_model/1","parameters":{"chunk_bytes.LL":65536}})", "old.json", d);
  ASSERT_FALSE(old.has_value());
  EXPECT_NE(old.error().message.find("recalibrate"), std::string::npos);
}

}  // namespace
}  // namespace topotune::tune
