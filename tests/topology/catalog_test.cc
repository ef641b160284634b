// The embedded catalog: every instance loads and builds; the issue's p4d and p3 facts; names.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "topology/instance_catalog.h"
#include "topology/instance_loader.h"
#include "topology/topology.h"

namespace topotune::topo {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Catalog, EveryInstanceLoadsAndBuildsAtOneAndFourHosts) {
  const std::vector<std::string> names = list_instances();
  ASSERT_GE(names.size(), 12u);
  for (const std::string& name : names) {
    for (int hosts : {1, 4}) {
      auto topo = load_instance(name, hosts);
      ASSERT_TRUE(topo) << name << ": " << topo.error().message;
      EXPECT_EQ(topo->num_hosts(), hosts);
      EXPECT_GE(topo->num_intra_host_rings(), 1) << name;
      // Every GPU pair and every inter-host pair has a route.
      const Route r =
          topo->route(topo->gpu_of(RankId(0)), topo->gpu_of(RankId(topo->num_ranks() - 1)));
      EXPECT_GT(r.size, 0) << name;
    }
  }
}

TEST(Catalog, IssueListIsPresent) {
  const std::vector<std::string> names = list_instances();
  const std::set<std::string> have(names.begin(), names.end());
  for (const char* n : {"p3.16xlarge",
                        "p3dn.24xlarge",
                        "p4d.24xlarge",
                        "p4de.24xlarge",
                        "p5.48xlarge",
                        "p5e.48xlarge",
                        "p5en.48xlarge",
                        "p6-b200.48xlarge",
                        "g4dn.12xlarge",
                        "g5.48xlarge",
                        "dgx-a100",
                        "dgx-h100",
                        "dgx-h200",
                        "gb200-nvl72",
                        "a4x-highgpu-4g",
                        "Standard_ND128isr_NDR_GB200_v6",
                        "p6e-gb200.36xlarge",
                        "gb300-nvl72",
                        "a4x-maxgpu-4g-metal",
                        "p6-b300.48xlarge"})
    EXPECT_TRUE(have.count(n)) << n;
}

// The Blackwell Ultra entries against their Blackwell predecessors, as AWS ("2 times more
// networking bandwidth") and GCP (3,200 vs 1,600 Gbps) state it: twice the scale-out bandwidth
// per GPU, the same NVLink per GPU, and the rack-scale ones one 18-host NVLink domain.
TEST(Catalog, BlackwellUltraDoublesScaleOutPerGpu) {
  auto per_gpu_net = [](const InstanceSpec& in) {
    return in.nic_bandwidth.value * in.num_nics / in.num_gpus;
  };
  auto per_gpu_nvlink = [](const InstanceSpec& in) {
    return in.nvlink_bandwidth_per_link.value * in.nvlinks_per_gpu;
  };
  const std::pair<const char*, const char*> pairs[] = {{"gb300-nvl72", "gb200-nvl72"},
                                                       {"a4x-maxgpu-4g-metal", "a4x-highgpu-4g"},
                                                       {"p6-b300.48xlarge", "p6-b200.48xlarge"}};
  for (const auto& [ultra, base] : pairs) {
    auto u = find_instance(ultra);
    auto b = find_instance(base);
    ASSERT_TRUE(u) << ultra;
    ASSERT_TRUE(b) << base;
    EXPECT_DOUBLE_EQ(per_gpu_net(*u), 2 * per_gpu_net(*b)) << ultra;
    EXPECT_DOUBLE_EQ(per_gpu_nvlink(*u), per_gpu_nvlink(*b)) << ultra;
    EXPECT_EQ(u->nvlink_domain_hosts, b->nvlink_domain_hosts) << ultra;
    EXPECT_EQ(u->transport, b->transport) << ultra;
  }
}

// SM counts (what NCCL's channels take from compute) as NVIDIA's whitepapers give them;
// unpublished ones stay unknown.
TEST(Catalog, SmCountsFromTheWhitepapersOrUnknown) {
  const std::pair<const char*, int> known[] = {{"p3.16xlarge", 80},  {"p4d.24xlarge", 108},
                                               {"p5.48xlarge", 132}, {"p5e.48xlarge", 132},
                                               {"dgx-h100", 132},    {"g4dn.12xlarge", 40}};
  for (const auto& [name, sms] : known) {
    auto in = find_instance(name);
    ASSERT_TRUE(in) << name;
    EXPECT_EQ(in->gpu.sm_count, sms) << name;
  }
  for (const char* name : {"g5.48xlarge", "p6-b200.48xlarge"}) {
    auto in = find_instance(name);
    ASSERT_TRUE(in) << name;
    EXPECT_FALSE(in->gpu.sm_count) << name;
    EXPECT_NE(std::find(in->unknowns.begin(), in->unknowns.end(), "gpu.sm_count"),
              in->unknowns.end())
        << name;
  }
}

TEST(Catalog, P4dFourNodes) {
  auto topo = load_instance("p4d.24xlarge", 4);
  ASSERT_TRUE(topo) << topo.error().message;
  int gpus = 0, nics = 0, nvswitches = 0;
  for (std::size_t i = 0; i < topo->num_devices(); ++i) {
    const Device& d = topo->device(NodeId(static_cast<std::int32_t>(i)));
    gpus += d.kind == DeviceKind::Gpu;
    nics += d.kind == DeviceKind::Nic;
    if (d.kind != DeviceKind::NvSwitch) continue;
    ++nvswitches;
    // One NVSwitch group per host, joined to its 8 GPUs at 12 x 25 = 300 GB/s per direction.
    int members = 0;
    for (LinkId l : topo->out_links(NodeId(static_cast<std::int32_t>(i)))) {
      const Link& link = topo->link(l);
      EXPECT_EQ(topo->device(link.dst).kind, DeviceKind::Gpu);
      EXPECT_EQ(topo->device(link.dst).host, d.host);
      EXPECT_DOUBLE_EQ(link.nominal.value, 300e9);
      ++members;
    }
    EXPECT_EQ(members, 8);
  }
  EXPECT_EQ(gpus, 32);
  EXPECT_EQ(nics, 16);
  EXPECT_EQ(nvswitches, 4);
  EXPECT_DOUBLE_EQ(topo->spec().instance.nic_bandwidth.value, 100e9 / 8);  // 100 Gbps each
  EXPECT_DOUBLE_EQ(topo->host_nic_bandwidth().value, 4 * 100e9 / 8);
}

TEST(Catalog, P3HasThePublishedPairMapAndNvLinkOnlyRings) {
  auto inst = find_instance("p3.16xlarge");
  ASSERT_TRUE(inst) << inst.error().message;
  // instances.md 3.1: NV2 pairs 0-3 0-4 1-2 1-5 2-3 4-7 5-6 6-7; NV1 pairs 0-1 0-2 1-3 2-6
  // 3-7 4-5 4-6 5-7; every other pair has none.
  int expected[8][8] = {};
  for (auto [a, b] : {std::pair{0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {4, 7}, {5, 6}, {6, 7}})
    expected[a][b] = expected[b][a] = 2;
  for (auto [a, b] : {std::pair{0, 1}, {0, 2}, {1, 3}, {2, 6}, {3, 7}, {4, 5}, {4, 6}, {5, 7}})
    expected[a][b] = expected[b][a] = 1;
  int got[8][8] = {};
  for (const NvLinkPair& p : inst->nvlink_pairs) {
    got[p.a][p.b] += p.links;
    got[p.b][p.a] += p.links;
  }
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) EXPECT_EQ(got[a][b], expected[a][b]) << a << "-" << b;
  auto topo = load_instance("p3.16xlarge", 2);
  ASSERT_TRUE(topo);
  ASSERT_GE(topo->num_intra_host_rings(), 2);
  for (int c = 0; c < topo->num_intra_host_rings(); ++c) {
    const std::vector<int>& ring = topo->intra_host_ring(c);
    ASSERT_EQ(ring.size(), 8u);
    for (std::size_t i = 0; i < 8; ++i) EXPECT_GT(expected[ring[i]][ring[(i + 1) % 8]], 0);
  }
}

TEST(Catalog, UnknownNameSuggestsNearest) {
  auto r = find_instance("p4d.24xlarg");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::NotFound);
  EXPECT_TRUE(contains(r.error().message, "did you mean p4d.24xlarge")) << r.error().message;
  auto prefix = find_instance("p5");
  ASSERT_FALSE(prefix);
  EXPECT_TRUE(contains(prefix.error().message, "p5.48xlarge")) << prefix.error().message;
  auto far = find_instance("zzzzzzzzzzzzzzzzzzzzzzzzzzzz");
  ASSERT_FALSE(far);
  EXPECT_FALSE(contains(far.error().message, "did you mean"));
  EXPECT_TRUE(find_instance("ml.p4d.24xlarge"));  // SageMaker spelling
}

TEST(Catalog, InjectedCatalogAndEditDistance) {
  auto text = read_text_file(std::string(TOPOTUNE_TEST_DATA_DIR) + "/p4d-fixture.json");
  ASSERT_TRUE(text);
  InstanceCatalog cat({{"p4d-fixture", *text}, {"other", "{}"}});
  EXPECT_EQ(cat.names(), (std::vector<std::string>{"other", "p4d-fixture"}));
  EXPECT_TRUE(cat.load("p4d-fixture"));
  EXPECT_FALSE(cat.load("other"));  // a broken entry fails to load, with its file name
  EXPECT_TRUE(contains(cat.load("other").error().message, "data/instances/other.json"));
  EXPECT_EQ(cat.suggestions("p4d-fixtur"), std::vector<std::string>{"p4d-fixture"});
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("P4D", "p4d"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(Catalog, NodeCountLimits) {
  auto zero = make_cluster_spec("p4d.24xlarge", 0);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().code, Errc::InvalidArgument);
  auto absurd = make_cluster_spec("p4d.24xlarge", 100000000);
  ASSERT_FALSE(absurd);
  EXPECT_TRUE(contains(absurd.error().message, "out of range 1..65536"));
  EXPECT_TRUE(make_cluster_spec("p4d.24xlarge", kMaxHosts));
}

}  // namespace
}  // namespace topotune::topo

namespace topotune::topo {
namespace {

// Every catalog instance, spread over racks: routes between GPUs, CPUs and network switches
// are contiguous paths whose latency is the sum of their links'; rings are permutations.
TEST(Catalog, RoutesAreContiguousOnEveryInstance) {
  for (const std::string& name : list_instances()) {
    auto topo = load_instance(name, 3, Placement::Spread);
    ASSERT_TRUE(topo) << name;
    std::vector<NodeId> ends;
    for (std::size_t i = 0; i < topo->num_devices(); ++i) {
      const NodeId id(static_cast<std::int32_t>(i));
      const DeviceKind k = topo->device(id).kind;
      if (k == DeviceKind::Gpu || k == DeviceKind::Cpu || k == DeviceKind::TorSwitch ||
          k == DeviceKind::Spine)
        ends.push_back(id);
    }
    for (NodeId a : ends)
      for (NodeId b : ends) {
        if (a == b) continue;
        const Route r = topo->route(a, b, a.value + b.value);
        ASSERT_GT(r.size, 0) << name << " " << topo->device(a).name << "->" << topo->device(b).name;
        NodeId at = a;
        double latency = 0;
        for (LinkId id : r.view()) {
          ASSERT_EQ(topo->link(id).src, at) << name;
          at = topo->link(id).dst;
          latency += topo->link(id).latency.value;
        }
        ASSERT_EQ(at, b) << name;
        EXPECT_NEAR(r.latency.value, latency, 1e-15);
      }
    for (int c = 0; c < topo->num_intra_host_rings(); ++c) {
      std::vector<int> ring = topo->intra_host_ring(c);
      std::sort(ring.begin(), ring.end());
      for (int g = 0; g < topo->gpus_per_host(); ++g) ASSERT_EQ(ring[g], g) << name;
    }
  }
}

}  // namespace
}  // namespace topotune::topo
