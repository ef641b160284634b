// The catalog's rules (topology/instance_check.h): every catalog file passes them, and each
// rule, broken alone in a valid catalog file, is reported with its field.

#include "topology/instance_check.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "topology/instance_catalog.h"
#include "topology/instance_loader.h"

namespace topotune::topo {
namespace {

using nlohmann::json;

const std::string kCatalogDir = TOPOTUNE_CATALOG_DIR;

json catalog_file(const std::string& name) {
  auto text = read_text_file(kCatalogDir + "/" + name + ".json");
  EXPECT_TRUE(text) << text.error().message;
  return json::parse(*text);
}

std::vector<InstanceProblem> check(const json& doc, const std::string& name) {
  return check_instance_text(doc.dump(2), name + ".json", name);
}

std::string joined(const std::vector<InstanceProblem>& problems) {
  std::string out;
  for (const InstanceProblem& p : problems) out += p.field + ": " + p.message + "\n";
  return out;
}

// Exactly one problem, on `field`, whose message contains `part`.
void expect_only(const std::vector<InstanceProblem>& problems, const std::string& field,
                 const std::string& part) {
  ASSERT_EQ(problems.size(), 1u) << joined(problems);
  EXPECT_EQ(problems[0].field, field) << joined(problems);
  EXPECT_NE(problems[0].message.find(part), std::string::npos) << joined(problems);
}

TEST(InstanceCheck, EveryCatalogFilePasses) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCatalogDir)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    EXPECT_EQ(joined(check_instance_file(entry.path().string())), "") << entry.path();
  }
  EXPECT_EQ(files, static_cast<int>(list_instances().size()));
}

TEST(InstanceCheck, EveryFigureIsWritten) {
  json d = catalog_file("p3.16xlarge");
  d["host"].erase("pcie_GBps");
  expect_only(check(d, "p3.16xlarge"), "host.pcie_GBps", "missing");
  d = catalog_file("p3.16xlarge");
  d.erase("sagemaker_name");
  expect_only(check(d, "p3.16xlarge"), "sagemaker_name", "missing");
  d = catalog_file("p3.16xlarge");
  d["intra"].erase("nvls");
  expect_only(check(d, "p3.16xlarge"), "intra.nvls", "missing");
  d = catalog_file("p3.16xlarge");
  d.erase("description");
  expect_only(check(d, "p3.16xlarge"), "description", "non-empty");
  // Optional figures may be left out.
  d = catalog_file("p4d.24xlarge");
  d["gpu"].erase("peak_tf32_TFLOPS");
  EXPECT_EQ(joined(check(d, "p4d.24xlarge")), "");
}

TEST(InstanceCheck, SourcesCiteAndNotesSayWhy) {
  json d = catalog_file("p3.16xlarge");
  d["gpu"]["count"]["source"] = "common knowledge";
  expect_only(check(d, "p3.16xlarge"), "gpu.count", "source cites neither");
  d = catalog_file("p3.16xlarge");
  d["gpu"]["count"]["source"] = "NVIDIA V100 datasheet";
  EXPECT_EQ(joined(check(d, "p3.16xlarge")), "");
  d = catalog_file("p3.16xlarge");
  d["host"]["cpu_reduce_GBps"] = {{"unknown", true}, {"note", "  "}};
  expect_only(check(d, "p3.16xlarge"), "host.cpu_reduce_GBps", "needs a note");
}

TEST(InstanceCheck, Bf16NativeIsKnownAndFollowsTheArchitecture) {
  json d = catalog_file("p3.16xlarge");
  d["gpu"]["bf16_native"]["value"] = true;
  expect_only(check(d, "p3.16xlarge"), "gpu.bf16_native", "got true on volta");
  d = catalog_file("p4d.24xlarge");
  d["gpu"]["bf16_native"]["value"] = false;
  expect_only(check(d, "p4d.24xlarge"), "gpu.bf16_native", "got false on ampere");
  d = catalog_file("p4d.24xlarge");
  d["gpu"]["bf16_native"] = {{"unknown", true}, {"note", "not read"}};
  expect_only(check(d, "p4d.24xlarge"), "gpu.bf16_native", "may not be unknown");
}

TEST(InstanceCheck, CrossFieldRules) {
  json d = catalog_file("p3.16xlarge");
  d["sagemaker_name"]["value"] = "p3.16xlarge";
  expect_only(check(d, "p3.16xlarge"), "sagemaker_name", "'ml.'");
  d = catalog_file("p3.16xlarge");
  d["intra"]["nvls"]["value"] = true;
  expect_only(check(d, "p3.16xlarge"), "intra.nvls", "needs an nvswitch fabric");
  d = catalog_file("p3.16xlarge");
  d["network"]["efa_version"] = {{"value", 1}, {"source", "instances.md §2.3"}};
  expect_only(check(d, "p3.16xlarge"), "network.efa_version", "exactly when");
  d = catalog_file("p4d.24xlarge");
  d["network"].erase("efa_version");
  expect_only(check(d, "p4d.24xlarge"), "network.efa_version", "exactly when");
  // Room for one more link per GPU, so that the loader's link count does not refuse it first.
  d = catalog_file("p3.16xlarge");
  d["intra"]["nvlinks_per_gpu"]["value"] = 7;
  d["intra"]["nvlink_pairs"]["value"].push_back({3, 0, 1});
  expect_only(check(d, "p3.16xlarge"), "intra.nvlink_pairs[16]", "pair 0-3 listed twice");
  d = catalog_file("p4d.24xlarge");
  d["host"]["pcie_switches"]["value"][0]["socket"] = 1;
  const std::vector<InstanceProblem> p = check(d, "p4d.24xlarge");
  ASSERT_EQ(p.size(), 3u) << joined(p);  // GPUs 0 and 1, NIC 0
  EXPECT_EQ(p[0].field, "host.gpu_socket");
  EXPECT_EQ(p[0].message, "GPU 0 on socket 0 but its switch host.pcie_switches[0] is on socket 1");
  EXPECT_EQ(p[2].field, "host.nic_socket");
}

// The loader's own refusals come back as one problem, split into field and message.
TEST(InstanceCheck, LoaderProblemsNameTheirField) {
  json d = catalog_file("p3.16xlarge");
  d["gpu"]["count"]["value"] = 0;
  expect_only(check(d, "p3.16xlarge"), "gpu.count", "must be in 1..");
  d = catalog_file("p3.16xlarge");
  d["host"]["cpu_reduce_GBps"]["tag"] = "derived";  // a tag on an unknown figure
  expect_only(check(d, "p3.16xlarge"), "host.cpu_reduce_GBps", "a figure is");
  const std::vector<InstanceProblem> syntax =
      check_instance_text("{\n  \"schema\": ,", "x.json", "x");
  ASSERT_EQ(syntax.size(), 1u);
  EXPECT_EQ(syntax[0].field, "");
  EXPECT_TRUE(syntax[0].message.starts_with("line 2, column 13: syntax error"))
      << syntax[0].message;
  const std::vector<InstanceProblem> missing = check_instance_file(kCatalogDir + "/no-such.json");
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].field, "");
}

TEST(InstanceCheck, FigurePathsAreTheSchemasInOrder) {
  const std::vector<std::string>& paths = instance_figure_paths();
  ASSERT_FALSE(paths.empty());
  EXPECT_EQ(paths.front(), "sagemaker_name");
  EXPECT_EQ(paths.back(), "network.gpudirect_rdma");
  // Every figure a catalog file records is one of them.
  for (const std::string& name : list_instances()) {
    auto inst = find_instance(name);
    ASSERT_TRUE(inst) << inst.error().message;
    for (const auto& [path, source] : inst->sources)
      EXPECT_NE(std::find(paths.begin(), paths.end(), path), paths.end()) << name << " " << path;
  }
}

}  // namespace
}  // namespace topotune::topo
