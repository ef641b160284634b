// Cluster files (topotune.cluster/1) and make_cluster_spec's placement defaults.

#include <gtest/gtest.h>

#include <algorithm>

#include "topology/cluster_spec.h"
#include "topology/instance_loader.h"
#include "topology/topology.h"

namespace topotune::topo {
namespace {

const std::string kDir = TOPOTUNE_TEST_DATA_DIR;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string error_of(const std::string& text) {
  auto r = parse_cluster_json(text, "c.json");
  return r ? std::string() : r.error().message;
}

TEST(ClusterFile, CatalogNameWithDefaults) {
  auto spec = parse_cluster_json(
      R"({"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", "nodes": 3,
          "placement": "spread"})",
      "c.json");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->hosts, 3);
  EXPECT_EQ(spec->placement, Placement::Spread);
  EXPECT_DOUBLE_EQ(spec->fabric.oversubscription, 4.0);  // the stated default off cluster
  EXPECT_TRUE(spec->link_params_set);
  auto topo = build_topology(*spec);
  ASSERT_TRUE(topo);
  EXPECT_EQ(topo->num_racks(), 3);
}

TEST(ClusterFile, InlineInstanceOverridesAndParams) {
  auto spec = load_cluster_file(kDir + "/cluster-inline.json");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->instance.name, "onprem-4gpu");
  EXPECT_EQ(spec->hosts, 6);
  EXPECT_EQ(spec->fabric.hosts_per_rack, 2);
  EXPECT_DOUBLE_EQ(spec->fabric.oversubscription, 2.0);
  EXPECT_DOUBLE_EQ(spec->params(LinkKind::Network).latency.value, 1.5e-6);
  EXPECT_DOUBLE_EQ(spec->params(LinkKind::Network).efficiency, 0.9);
  EXPECT_DOUBLE_EQ(spec->instance.pcie_bandwidth->value, 31.5e9);
  EXPECT_EQ(spec->instance.sources.at("host.pcie_GBps"),
            "override in " + kDir + "/cluster-inline.json");
  // Untouched classes keep the partition defaults.
  EXPECT_DOUBLE_EQ(spec->params(LinkKind::Uplink).latency.value, 5e-6);
  auto topo = build_topology(*spec);
  ASSERT_TRUE(topo) << topo.error().message;
  EXPECT_EQ(topo->num_racks(), 3);
  EXPECT_EQ(topo->num_ranks(), 24);
}

TEST(ClusterFile, Errors) {
  EXPECT_TRUE(
      contains(error_of("{\"schema\": \"topotune.cluster/1\",\n \"nodes\": 2,,}"), "c.json:2:13:"))
      << error_of("{\"schema\": \"topotune.cluster/1\",\n \"nodes\": 2,,}");
  const std::string head = R"({"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", )";
  EXPECT_TRUE(contains(error_of(head + R"("nodes": 0})"), "nodes: must be in 1..65536"));
  EXPECT_TRUE(contains(error_of(head + R"("nodes": 100000000})"), "nodes: must be in 1..65536"));
  EXPECT_TRUE(
      contains(error_of(head + R"("nodes": 2, "placment": "cluster"})"), "placment: unknown key"));
  EXPECT_TRUE(
      contains(error_of(head + R"("nodes": 2, "placement": "rack"})"), "unknown placement 'rack'"));
  EXPECT_TRUE(contains(error_of(head + R"("nodes": 2, "overrides": {"gpu.count": 4}})"),
                       "overrides.gpu.count: cannot be overridden"));
  EXPECT_TRUE(contains(error_of(head + R"("nodes": 2, "overrides": {"network.nic_Gbps": -1}})"),
                       "must be > 0"));
  EXPECT_TRUE(
      contains(error_of(head + R"("nodes": 2, "link_params": {"nvlink": {"efficiency": 1.5}}})"),
               "link_params.nvlink.efficiency: must be in [0.001, 1]"));
  EXPECT_TRUE(contains(error_of(head + R"("nodes": 2, "fabric": {"oversubscription": 0.5}})"),
                       "fabric.oversubscription: must be in 1..1000"));
  EXPECT_TRUE(contains(error_of(R"({"schema": "topotune.cluster/1", "instance": "p4d.24xl",
                                    "nodes": 2})"),
                       "did you mean p4d.24xlarge"));
  EXPECT_TRUE(contains(error_of(R"({"instance": "p4d.24xlarge", "nodes": 2})"), "schema: missing"));
  EXPECT_TRUE(contains(error_of(R"({"schema": "topotune.cluster/1", "instance": 5, "nodes": 2})"),
                       "instance: expected a catalog name or an instance object"));
}

TEST(ClusterFile, OverriddenFiguresAreKnownWithTheFileAsTheirSource) {
  // gb200-nvl72's GPU memory and bf16 peak are unknown in the catalog (the peak with published
  // figures); a file that knows them sets them, and the peak's published range goes.
  auto spec = parse_cluster_json(
      R"({"schema": "topotune.cluster/1", "instance": "gb200-nvl72", "nodes": 2,
          "overrides": {"gpu.memory_GiB": 173, "gpu.peak_fp16_TFLOPS": 2500}})",
      "c.json");
  ASSERT_TRUE(spec) << spec.error().message;
  const GpuSpec& gpu = spec->instance.gpu;
  EXPECT_EQ(gpu.memory.value, std::int64_t{173} << 30);
  EXPECT_DOUBLE_EQ(gpu.peak_fp16_flops, 2500e12);
  EXPECT_FALSE(gpu.peak_fp16_published);
  const auto& unknowns = spec->instance.unknowns;
  EXPECT_EQ(std::count(unknowns.begin(), unknowns.end(), "gpu.memory_GiB"), 0);
  EXPECT_EQ(spec->instance.sources.at("gpu.memory_GiB").find("override"), 0u)
      << spec->instance.sources.at("gpu.memory_GiB");
  auto catalog = make_cluster_spec("gb200-nvl72", 2);
  ASSERT_TRUE(catalog);
  EXPECT_EQ(catalog->instance.gpu.memory.value, 0);
  EXPECT_TRUE(catalog->instance.gpu.peak_fp16_published);
}

TEST(ClusterFile, TcpOverrideTurnsOnTheFlowCap) {
  auto spec = parse_cluster_json(
      R"({"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", "nodes": 2,
          "overrides": {"network.transport": "tcp"}})",
      "c.json");
  ASSERT_TRUE(spec) << spec.error().message;
  auto topo = build_topology(*spec);
  ASSERT_TRUE(topo);
  auto cap = topo->flow_cap(topo->gpu_of(RankId(0)), topo->gpu_of(RankId(8)));
  ASSERT_TRUE(cap);
  EXPECT_DOUBLE_EQ(cap->value, 10e9 / 8);
}

}  // namespace
}  // namespace topotune::topo
