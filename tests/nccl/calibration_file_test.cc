// The calibration file: written as calibrate writes it, read back by every --calibration, the
// link_params section spliced in, and the built-in fit applied to unmeasured links only.

#include "calibration/calibration_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/assert.h"
#include "topology/model_defaults.h"

namespace topotune::tune {
namespace {

using topo::LinkKind;

/// `text` in a fresh temporary file, removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "topotune-calfile-XXXXXX").string();
    const int fd = ::mkstemp(tmpl.data());
    TT_ASSERT(fd >= 0, "mkstemp");
    ::close(fd);
    path_ = tmpl;
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(CalibrationFile, WrittenParametersComeBack) {
  algo::NcclModelParams p = algo::default_params();
  p.nvlink_efficiency = 0.512;
  const std::string text = calibration_file_text(p, "test fit");
  EXPECT_EQ(text, algo::params_to_json(p, "test fit"));  // nothing spliced without links
  const TempFile f(text);
  const Expected<algo::NcclModelParams> back = load_nccl_model(f.path());
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->nvlink_efficiency, 0.512);
  EXPECT_EQ(load_nccl_model("")->nvlink_efficiency, algo::default_params().nvlink_efficiency);
}

TEST(CalibrationFile, TheLinkSectionIsSplicedInAndReadByTheTopologySide) {
  const std::string links = R"({"network": {"latency_us": 7.5, "efficiency": 0.66}})";
  const std::string text = calibration_file_text(algo::default_params(), "d", links);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j.at("link_params"), nlohmann::json::parse(links));
  EXPECT_EQ(j.at("description"), "d");
  topo::ClusterSpec spec = *topo::make_cluster_spec("p4d.24xlarge", 2);
  ASSERT_TRUE(apply_calibration_text(text, "cal.json", spec));
  EXPECT_DOUBLE_EQ(spec.params(LinkKind::Network).efficiency, 0.66);
  EXPECT_NEAR(spec.params(LinkKind::Network).latency.us(), 7.5, 1e-12);
  // The same through a file.
  const TempFile f(text);
  topo::ClusterSpec again = *topo::make_cluster_spec("p4d.24xlarge", 2);
  ASSERT_TRUE(apply_calibration_file(f.path(), again));
  EXPECT_DOUBLE_EQ(again.params(LinkKind::Network).efficiency, 0.66);
}

TEST(CalibrationFile, NoFileAppliesTheBuiltInFitToUnmeasuredLinksOnly) {
  topo::ClusterSpec catalog = *topo::make_cluster_spec("p4d.24xlarge", 2);
  const auto defaults = catalog.link_params;
  ASSERT_TRUE(apply_calibration_file("", catalog));
  EXPECT_NE(catalog.params(LinkKind::Network).efficiency,
            defaults[static_cast<int>(LinkKind::Network)].efficiency);
  // A cluster whose links someone set (an emulated cluster's file) keeps them.
  topo::ClusterSpec measured = *topo::make_cluster_spec("p4d.24xlarge", 2);
  measured.params(LinkKind::Network).efficiency = 0.77;
  ASSERT_TRUE(apply_calibration_file("", measured));
  EXPECT_EQ(measured.params(LinkKind::Network).efficiency, 0.77);
}

TEST(CalibrationFile, DescriptionNamesTheRunsInValidUtf8) {
  EXPECT_EQ(calibration_description({"a.log", "b\xff.log"}, {"m.json"}),
            "calibrated by topotune calibrate on: a.log b\xef\xbf\xbd.log m.json (link classes)");
}

}  // namespace
}  // namespace topotune::tune
