// Instance loader: fixtures, conversions, and every kind of bad input.

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "topology/instance_loader.h"
#include "topology/topology.h"

namespace topotune::topo {
namespace {

using nlohmann::json;

const std::string kDir = TOPOTUNE_TEST_DATA_DIR;

json fixture(const std::string& name) {
  auto text = read_text_file(kDir + "/" + name + ".json");
  EXPECT_TRUE(text);
  return json::parse(*text);
}

// Loads a modified fixture and returns the error message ("" if it loaded).
std::string error_of(const json& doc, const std::string& name = "p4d-fixture") {
  auto r = parse_instance_json(doc.dump(2), name + ".json", name);
  return r ? std::string() : r.error().message;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Loader, P4dFixtureConvertsUnitsOnce) {
  auto inst = load_instance_file(kDir + "/p4d-fixture.json");
  ASSERT_TRUE(inst) << inst.error().message;
  EXPECT_EQ(inst->name, "p4d-fixture");
  EXPECT_EQ(inst->num_gpus, 8);
  EXPECT_EQ(inst->gpu.arch, GpuArch::Ampere);
  EXPECT_EQ(inst->gpu.memory.value, 40LL << 30);
  EXPECT_DOUBLE_EQ(inst->gpu.peak_fp16_flops, 312e12);
  EXPECT_DOUBLE_EQ(inst->nvlink_bandwidth_per_link.value, 25e9);
  EXPECT_DOUBLE_EQ(inst->nic_bandwidth.value, 100e9 / 8);
  EXPECT_DOUBLE_EQ(inst->pcie_bandwidth->value, 15.75e9);
  EXPECT_FALSE(inst->sagemaker_name);
  EXPECT_EQ(inst->pcie_switches.size(), 4u);
  EXPECT_EQ(inst->pcie_switches[2].nics, std::vector<int>{2});
  EXPECT_EQ(inst->efa_version, 1);
  EXPECT_EQ(inst->tags.at("host.pcie_GBps"), "disagree");
  EXPECT_EQ(inst->sources.at("gpu.count"), "instances.md §4.1");
  EXPECT_NE(std::find(inst->unknowns.begin(), inst->unknowns.end(), "host.cpu_reduce_GBps"),
            inst->unknowns.end());
  EXPECT_FALSE(inst->cpu_reduce_bandwidth);
}

TEST(Loader, UnknownLayoutGetsDefaults) {
  auto inst = load_instance_file(kDir + "/p3-fixture.json");
  ASSERT_TRUE(inst) << inst.error().message;
  EXPECT_TRUE(inst->pcie_switches.empty());
  EXPECT_EQ(inst->nic_socket, std::vector<int>{0});  // spread evenly: the one NIC on socket 0
  EXPECT_EQ(inst->nvlink_pairs.size(), 16u);
  for (const char* u : {"host.pcie_switches", "host.nic_socket", "host.cpu_model"})
    EXPECT_NE(std::find(inst->unknowns.begin(), inst->unknowns.end(), u), inst->unknowns.end())
        << u;
}

TEST(Loader, MalformedJsonHasLineAndColumn) {
  // The stray word starts at line 3, column 3.
  auto r = parse_instance_json("{\n  \"schema\": \"topotune.instance/1\",\n  oops\n}", "bad.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::ParseError);
  EXPECT_TRUE(contains(r.error().message, "bad.json:3:3:")) << r.error().message;
  auto empty = parse_instance_json("", "empty.json");
  ASSERT_FALSE(empty);
  EXPECT_TRUE(contains(empty.error().message, "empty.json:1:")) << empty.error().message;
  EXPECT_FALSE(parse_instance_json("[1, 2", "trunc.json"));
  EXPECT_FALSE(parse_instance_json("\xff\xfe{}", "binary.json"));
}

TEST(Loader, MissingAndMistypedFields) {
  json d = fixture("p4d-fixture");
  d["gpu"].erase("count");
  EXPECT_TRUE(contains(error_of(d), "gpu.count: missing")) << error_of(d);
  d = fixture("p4d-fixture");
  d["gpu"]["count"]["value"] = "8";
  EXPECT_TRUE(contains(error_of(d), "gpu.count: expected an integer, got string"));
  d = fixture("p4d-fixture");
  d["gpu"]["count"]["value"] = 8.5;
  EXPECT_TRUE(contains(error_of(d), "expected an integer"));
  d = fixture("p4d-fixture");
  d.erase("network");
  EXPECT_TRUE(contains(error_of(d), "network: missing"));
  d = fixture("p4d-fixture");
  d["network"]["gpudirect_rdma"]["value"] = "yes";
  EXPECT_TRUE(contains(error_of(d), "network.gpudirect_rdma: expected true or false"));
  d = fixture("p4d-fixture");
  d["intra"]["fabric"]["value"] = "nvswitches";
  EXPECT_TRUE(contains(error_of(d), "intra.fabric: 'nvswitches' is not one of"));
}

// The loader reads the names topology/names.cc writes, and lists them when a name is wrong.
TEST(Loader, EnumFiguresUseTheNameTables) {
  for (GpuArch a :
       {GpuArch::Volta, GpuArch::Turing, GpuArch::Ampere, GpuArch::Hopper, GpuArch::Blackwell}) {
    json d = fixture("p4d-fixture");
    d["gpu"]["arch"]["value"] = arch_name(a);
    auto r = parse_instance_json(d.dump(2), "p4d-fixture.json", "p4d-fixture");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->gpu.arch, a);
  }
  json d = fixture("p4d-fixture");
  d["gpu"]["arch"]["value"] = "kepler";
  EXPECT_TRUE(contains(error_of(d),
                       "gpu.arch: 'kepler' is not one of volta, turing, ampere, hopper, blackwell"))
      << error_of(d);
  d = fixture("p4d-fixture");
  d["intra"]["fabric"]["value"] = "nvswitches";
  EXPECT_TRUE(
      contains(error_of(d), "intra.fabric: 'nvswitches' is not one of nvswitch, nvlink_mesh, pcie"))
      << error_of(d);
  d = fixture("p4d-fixture");
  d["network"]["transport"]["value"] = "ethernet";
  EXPECT_TRUE(contains(error_of(d),
                       "network.transport: 'ethernet' is not one of efa, infiniband, roce, tcp"))
      << error_of(d);
}

TEST(Loader, UnknownKeysAreRejected) {
  json d = fixture("p4d-fixture");
  d["gpu"]["cuont"] = {{"value", 8}, {"source", "typo"}};
  EXPECT_TRUE(contains(error_of(d), "gpu.cuont: unknown key")) << error_of(d);
  d = fixture("p4d-fixture");
  d["gpu"]["count"]["sourse"] = "typo";
  EXPECT_TRUE(contains(error_of(d), "gpu.count.sourse: unknown key"));
  d = fixture("p4d-fixture");
  d["host"]["pcie_switches"]["value"][0]["gpu"] = json::array({0});
  EXPECT_TRUE(contains(error_of(d), "host.pcie_switches[0].gpu: unknown key"));
}

TEST(Loader, FigureObjectsMustBeComplete) {
  json d = fixture("p4d-fixture");
  d["gpu"]["model"].erase("source");
  EXPECT_TRUE(contains(error_of(d), "gpu.model: a figure is")) << error_of(d);
  d = fixture("p4d-fixture");
  d["host"]["cpu_reduce_GBps"].erase("note");
  EXPECT_TRUE(contains(error_of(d), "host.cpu_reduce_GBps: a figure is"));
  d = fixture("p4d-fixture");
  d["network"]["nic_Gbps"] = {{"unknown", true}, {"note", "who knows"}};
  EXPECT_TRUE(contains(error_of(d), "network.nic_Gbps: is required and cannot be unknown"));
  d = fixture("p4d-fixture");
  d["gpu"]["count"] = 8;  // a bare number, not a figure object
  EXPECT_TRUE(contains(error_of(d), "gpu.count: expected an object"));
}

TEST(Loader, AnUnknownPeakListsThePublishedFiguresThatDisagree) {
  const json two =
      json::array({{{"value", 2640}, {"source", "b"}}, {{"value", 2250}, {"source", "a"}}});
  json d = fixture("p4d-fixture");
  d["gpu"]["peak_fp16_TFLOPS"] = {
      {"unknown", true}, {"note", "sources disagree"}, {"published", two}};
  auto inst = parse_instance_json(d.dump(), "p4d-fixture.json", "p4d-fixture");
  ASSERT_TRUE(inst) << inst.error().message;
  EXPECT_EQ(inst->gpu.peak_fp16_flops, 0);
  ASSERT_TRUE(inst->gpu.peak_fp16_published);
  EXPECT_DOUBLE_EQ(inst->gpu.peak_fp16_published->low, 2250e12);
  EXPECT_DOUBLE_EQ(inst->gpu.peak_fp16_published->high, 2640e12);
  EXPECT_EQ(inst->sources.at("gpu.peak_fp16_TFLOPS"),
            "unknown: sources disagree; published figures that disagree: 2640 (b); 2250 (a)");
  // A known figure has no published list; only the fp16 peak has one; two different values.
  d["gpu"]["peak_fp16_TFLOPS"] = {{"value", 312}, {"source", "x"}, {"published", two}};
  EXPECT_TRUE(contains(error_of(d), "gpu.peak_fp16_TFLOPS.published: only an unknown figure"))
      << error_of(d);
  d = fixture("p4d-fixture");
  d["gpu"]["peak_fp32_TFLOPS"] = {{"unknown", true}, {"note", "n"}, {"published", two}};
  EXPECT_TRUE(contains(error_of(d), "only gpu.peak_fp16_TFLOPS and gpu.memory_GiB list"))
      << error_of(d);
  // The memory's published figures: what fits is checked against the smallest (GiB here).
  d = fixture("p4d-fixture");
  d["gpu"]["memory_GiB"] = {{"unknown", true}, {"note", "n"}, {"published", two}};
  auto mem = parse_instance_json(d.dump(), "p4d-fixture.json", "p4d-fixture");
  ASSERT_TRUE(mem) << mem.error().message;
  EXPECT_EQ(mem->gpu.memory.value, 0);
  ASSERT_TRUE(mem->gpu.memory_published);
  EXPECT_DOUBLE_EQ(mem->gpu.memory_published->low, 2250.0 * (1 << 30));
  EXPECT_FALSE(mem->gpu.peak_fp16_published);
  const json same =
      json::array({{{"value", 2250}, {"source", "a"}}, {{"value", 2250}, {"source", "b"}}});
  const json one = json::array({{{"value", 2250}, {"source", "a"}}});
  const json huge =
      json::array({{{"value", 2250}, {"source", "a"}}, {{"value", 1e6}, {"source", "b"}}});
  const json unsourced = json::array({{{"value", 2250}}, {{"value", 2640}, {"source", "b"}}});
  for (const auto& [list, words] :
       {std::pair{same, "lists one value"}, std::pair{one, "expected 2 to 8"},
        std::pair{huge, "published[1].value: must be at most 100000"},
        std::pair{unsourced, "needs \"value\" and \"source\""}}) {
    d = fixture("p4d-fixture");
    d["gpu"]["peak_fp16_TFLOPS"] = {{"unknown", true}, {"note", "n"}, {"published", list}};
    EXPECT_TRUE(contains(error_of(d), words)) << error_of(d);
  }
}

TEST(Loader, NegativeAndAbsurdNumbers) {
  json d = fixture("p4d-fixture");
  d["network"]["nic_Gbps"]["value"] = -100;
  EXPECT_TRUE(contains(error_of(d), "network.nic_Gbps: must be > 0")) << error_of(d);
  d = fixture("p4d-fixture");
  d["host"]["pcie_GBps"]["value"] = 0;
  EXPECT_TRUE(contains(error_of(d), "host.pcie_GBps: must be > 0"));
  d = fixture("p4d-fixture");
  d["gpu"]["count"]["value"] = 0;
  EXPECT_TRUE(contains(error_of(d), "gpu.count: must be in 1..64"));
  d = fixture("p4d-fixture");
  d["gpu"]["count"]["value"] = 18446744073709551615ULL;
  EXPECT_TRUE(contains(error_of(d), "gpu.count: must be in"));
  d = fixture("p4d-fixture");
  d["gpu"]["count"]["value"] = -9223372036854775807LL;
  EXPECT_TRUE(contains(error_of(d), "gpu.count: must be in"));
  d = fixture("p4d-fixture");
  d["gpu"]["sm_count"] = {{"value", 0}, {"source", "NVIDIA A100 whitepaper"}};
  EXPECT_TRUE(contains(error_of(d), "gpu.sm_count")) << error_of(d);
  d["gpu"]["sm_count"]["value"] = 108;
  auto ok = parse_instance_json(d.dump(2), "p4d-fixture.json", "p4d-fixture");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->gpu.sm_count, 108);
}

TEST(Loader, PcieSwitchAndSocketIndices) {
  json d = fixture("p4d-fixture");
  d["host"]["pcie_switches"]["value"][3]["gpus"] = json::array({6, 8});  // no GPU 8
  EXPECT_TRUE(contains(error_of(d), "host.pcie_switches[3].gpus: GPU index 8 out of range 0..7"))
      << error_of(d);
  d = fixture("p4d-fixture");
  d["host"]["pcie_switches"]["value"][3]["socket"] = 2;  // a switch on a socket that is not
  EXPECT_TRUE(contains(error_of(d), "host.pcie_switches[3].socket: socket 2 out of range"));
  d = fixture("p4d-fixture");
  d["host"]["pcie_switches"]["value"][3]["gpus"] = json::array({6, 1});  // GPU 1 twice
  EXPECT_TRUE(contains(error_of(d), "GPU 1 is under more than one PCIe switch"));
  d = fixture("p4d-fixture");
  d["host"]["gpu_socket"]["value"] = json::array({0, 0, 0, 0, 1, 1, 1});
  EXPECT_TRUE(contains(error_of(d), "host.gpu_socket: has 7 entries, gpu.count is 8"));
  d = fixture("p4d-fixture");
  d["host"]["nic_socket"]["value"] = json::array({0, 0, 1, 3});
  EXPECT_TRUE(contains(error_of(d), "host.nic_socket: socket 3 out of range"));
}

TEST(Loader, NvLinkRules) {
  json d = fixture("p4d-fixture");
  d["intra"]["nvlink_pairs"] = {{"value", json::array({json::array({0, 1, 1})})}, {"source", "x"}};
  EXPECT_TRUE(contains(error_of(d), "intra.nvlink_pairs: only for nvlink_mesh")) << error_of(d);
  d = fixture("p3-fixture");
  d["intra"]["nvlink_pairs"]["value"].push_back(json::array({0, 5, 1}));  // GPU 0: 7 > 6 links
  EXPECT_TRUE(contains(error_of(d, "p3-fixture"), "more than nvlinks_per_gpu = 6"));
  d = fixture("p3-fixture");
  d["intra"]["nvlink_pairs"]["value"][0] = json::array({0, 9, 1});
  EXPECT_TRUE(contains(error_of(d, "p3-fixture"), "intra.nvlink_pairs[0]: GPU index out of range"));
  d = fixture("p3-fixture");
  d["intra"].erase("nvlinks_per_gpu");
  EXPECT_TRUE(contains(error_of(d, "p3-fixture"), "intra.nvlinks_per_gpu: missing"));
}

TEST(Loader, SchemaAndName) {
  json d = fixture("p4d-fixture");
  d["schema"] = "topotune.instance/2";
  EXPECT_TRUE(contains(error_of(d), "schema: expected \"topotune.instance/1\""));
  d = fixture("p4d-fixture");
  EXPECT_TRUE(contains(error_of(d, "p4d-other"), "does not match the file name \"p4d-other\""));
  auto missing = load_instance_file(kDir + "/no-such-file.json");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, Errc::Io);
}

TEST(Loader, FixturesBuild) {
  for (const char* name : {"p4d-fixture", "p3-fixture"}) {
    auto inst = load_instance_file(kDir + "/" + name + ".json");
    ASSERT_TRUE(inst);
    auto spec = make_cluster_spec(*inst, 4, Placement::Cluster);
    ASSERT_TRUE(spec);
    auto topo = build_topology(*spec);
    ASSERT_TRUE(topo) << topo.error().message;
    EXPECT_EQ(topo->num_ranks(), 32);
  }
}

}  // namespace
}  // namespace topotune::topo
