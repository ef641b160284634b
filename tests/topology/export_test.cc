// JSON/DOT export and the unknown-figure report.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/topology/test_instances.h"
#include "topology/topology_export.h"

namespace topotune::topo {
namespace {

using testing::cluster_of;

TEST(Export, JsonHasTheScriptKeys) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 3, Placement::Partition));
  ASSERT_TRUE(topo);
  const auto doc = nlohmann::json::parse(topology_to_json(*topo));
  for (const char* k : {"instance", "nodes", "gpus", "nics", "links", "nvlink_domains",
                        "bisection_bandwidth_Bps", "host_nic_bandwidth_Bps", "placement", "racks"})
    EXPECT_TRUE(doc.contains(k)) << k;
  EXPECT_EQ(doc["gpus"].size(), 24u);
  EXPECT_EQ(doc["nics"].size(), 12u);
  EXPECT_EQ(doc["links"].size(), topo->num_links());
  EXPECT_EQ(doc["gpus"][11]["id"], "h1/gpu3");
  EXPECT_EQ(doc["gpus"][11]["rank"], 11);
  EXPECT_EQ(doc["gpus"][11]["rails"], std::vector<int>{1});
  EXPECT_EQ(doc["placement"], "partition");
  EXPECT_EQ(doc["racks"], 3);
  const auto& l0 = doc["links"][0];
  EXPECT_EQ(l0["src"], "h0/gpu0");
  EXPECT_EQ(l0["kind"], "nvlink");
  EXPECT_DOUBLE_EQ(l0["bandwidth_Bps"].get<double>(), 300e9);
  EXPECT_DOUBLE_EQ(l0["effective_bandwidth_Bps"].get<double>(), 240e9);
  EXPECT_DOUBLE_EQ(l0["latency_s"].get<double>(), 0.5e-6);
  ASSERT_EQ(doc["nvlink_domains"].size(), 3u);
  EXPECT_EQ(doc["nvlink_domains"][2]["gpus"], (std::vector<int>{16, 17, 18, 19, 20, 21, 22, 23}));
  EXPECT_FALSE(doc.contains("per_flow_cap_Bps"));  // EFA
}

TEST(Export, NvLinkMeshDomainIsTheSlowestGpu) {
  auto topo = build_topology(cluster_of(testing::p3_like(), 1, Placement::Cluster));
  ASSERT_TRUE(topo);
  const auto domains = nvlink_domains(*topo);
  ASSERT_EQ(domains.size(), 1u);
  EXPECT_EQ(domains[0].gpus.size(), 8u);
  // Every cube-mesh GPU has 2 double + 2 single links = 6 x 25 GB/s.
  EXPECT_DOUBLE_EQ(domains[0].per_gpu_bandwidth.value, 150e9);
  auto pcie = build_topology(cluster_of(testing::g5_like(), 1, Placement::Cluster));
  ASSERT_TRUE(pcie);
  EXPECT_TRUE(nvlink_domains(*pcie).empty());
}

TEST(Export, DotShowsOneHostAndTheNetwork) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 20, Placement::Spread));
  ASSERT_TRUE(topo);
  const std::string dot = topology_to_dot(*topo);
  EXPECT_EQ(dot.rfind("graph topotune {", 0), 0u);
  EXPECT_NE(dot.find("\"h0/gpu7\""), std::string::npos);
  EXPECT_EQ(dot.find("\"h1/gpu0\""), std::string::npos);  // other hosts are summarised
  EXPECT_NE(dot.find("\"spine\""), std::string::npos);
  EXPECT_NE(dot.find("12 more racks"), std::string::npos);  // 20 racks, 8 drawn
  // Balanced braces: the host cluster is closed.
  EXPECT_EQ(std::count(dot.begin(), dot.end(), '{'), std::count(dot.begin(), dot.end(), '}'));
}

TEST(Export, DotQuotesEveryName) {
  EXPECT_EQ(dot_quote("h0/gpu0"), "\"h0/gpu0\"");
  EXPECT_EQ(dot_quote("a\"b\\"), "\"a\\\"b\\\\\"");
  EXPECT_EQ(dot_quote("two\nlines\t"), "\"two\\nlines \"");
  // An instance name from a cluster file that closed the label and added a node and an edge.
  InstanceSpec s = testing::p4d_like();
  s.name = "x\"]; injected [shape=box]; injected -- \"h0/gpu0\"; graph [label=\"\\";
  auto topo = build_topology(cluster_of(s, 1, Placement::Cluster));
  ASSERT_TRUE(topo);
  const std::string dot = topology_to_dot(*topo);
  EXPECT_NE(dot.find("label=\"x\\\"]; injected [shape=box]; injected -- \\\"h0/gpu0\\\"; "
                     "graph [label=\\\"\\\\ x 1 (cluster placement, 1 rack)\""),
            std::string::npos)
      << dot;
  // Every line has an even number of unescaped quotes: no string is left open.
  std::istringstream lines(dot);
  for (std::string l; std::getline(lines, l);) {
    int quotes = 0;
    for (std::size_t i = 0; i < l.size(); ++i) {
      if (l[i] == '\\')
        ++i;
      else if (l[i] == '"')
        ++quotes;
    }
    EXPECT_EQ(quotes % 2, 0) << l;
    EXPECT_NE(l.rfind("  injected", 0), 0u) << l;
  }
}

// The link classes `topo` tabulates: directed links per class, their distinct rates, and the
// class's parameters. p4d-like x 3 in a partition: per host 8 GPUs x 2 directions of NVLink to
// the switch fabric, 4 NICs x 2 directions to the rack's leaf; 3 racks, so leaf uplinks too.
TEST(Export, LinkClassesCountDirectedLinksAndDistinctRates) {
  auto topo = build_topology(cluster_of(testing::p4d_like(), 3, Placement::Partition));
  ASSERT_TRUE(topo);
  const auto classes = link_classes(*topo);
  ASSERT_FALSE(classes.empty());
  std::size_t total = 0;
  for (std::size_t i = 0; i < classes.size(); ++i) {
    total += static_cast<std::size_t>(classes[i].links);
    if (i > 0) {
      EXPECT_LT(classes[i - 1].kind, classes[i].kind);  // LinkKind order
    }
    EXPECT_EQ(classes[i].efficiency, topo->spec().params(classes[i].kind).efficiency);
    EXPECT_EQ(classes[i].latency, topo->spec().params(classes[i].kind).latency);
  }
  EXPECT_EQ(total, topo->num_links());
  EXPECT_EQ(classes.front().kind, LinkKind::NvLink);
  EXPECT_EQ(classes.front().links, 3 * 8 * 2);
  EXPECT_EQ(classes.front().nominal, std::vector<BytesPerSec>{BytesPerSec(300e9)});
  const auto net = std::find_if(classes.begin(), classes.end(), [](const LinkClassSummary& c) {
    return c.kind == LinkKind::Network;
  });
  ASSERT_NE(net, classes.end());
  EXPECT_EQ(net->links, 3 * 4 * 2);
  EXPECT_EQ(classes.back().kind, LinkKind::Uplink);
  // The p3 cube mesh joins some GPU pairs with two NVLinks: two distinct rates, ascending.
  auto p3 = build_topology(cluster_of(testing::p3_like(), 1, Placement::Cluster));
  ASSERT_TRUE(p3);
  const auto mesh = link_classes(*p3);
  ASSERT_EQ(mesh.front().kind, LinkKind::NvLink);
  EXPECT_EQ(mesh.front().nominal, (std::vector<BytesPerSec>{BytesPerSec(25e9), BytesPerSec(50e9)}));
}

TEST(Export, UnknownFiguresNameTheirDefaults) {
  InstanceSpec s = testing::p4d_like();
  s.unknowns = {"host.cpu_reduce_GBps", "gpu.reduce_bandwidth_GBps"};
  s.sources["host.cpu_reduce_GBps"] = "unknown: not published";
  auto topo = build_topology(cluster_of(s, 1, Placement::Cluster));
  ASSERT_TRUE(topo);
  const auto u = unknown_figures(*topo);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].figure, "host.cpu_reduce_GBps");
  EXPECT_EQ(u[0].note, "not published");
  EXPECT_EQ(u[0].model_default, "10.00 GB/s (assumed)");
  EXPECT_EQ(u[1].model_default, "518.33 GB/s (memory bandwidth / 3, assumed)");
}

}  // namespace
}  // namespace topotune::topo
