// Multi-node NVLink domains (intra.nvlink_domain_hosts): the figure as the loader reads it, and
// the graph the builder makes of it (GB200 NVL72 racks of 18 hosts of 4 GPUs).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "topology/cluster_spec.h"
#include "topology/instance_loader.h"
#include "topology/topology.h"

namespace topotune::topo {
namespace {

// A 4-GPU NVSwitch host; `domain` is the intra.nvlink_domain_hosts member ("" for none).
std::string instance_json(const std::string& fabric, const std::string& domain) {
  const std::string nv =
      fabric == "pcie" ? "" : R"(, "nvlink_GBps_per_link": {"value": 50, "source": "s"},
                                               "nvlinks_per_gpu": {"value": 18, "source": "s"})";
  return R"({"schema": "topotune.instance/1", "name": "x", "vendor": "custom",
    "gpu": {"count": {"value": 4, "source": "s"}, "model": {"value": "G", "source": "s"},
            "arch": {"value": "blackwell", "source": "s"}},
    "intra": {"fabric": {"value": ")" +
         fabric + "\", \"source\": \"s\"}" + nv + domain + R"(},
    "host": {"cpu_sockets": {"value": 1, "source": "s"}},
    "network": {"nics": {"value": 4, "source": "s"}, "nic_Gbps": {"value": 400, "source": "s"},
                "transport": {"value": "infiniband", "source": "s"},
                "gpudirect_rdma": {"value": true, "source": "s"}}})";
}

TEST(NvLinkDomainFigure, ReadAbsentAndRefused) {
  auto with = parse_instance_json(
      instance_json("nvswitch", R"(, "nvlink_domain_hosts": {"value": 18, "source": "s"})"), "x",
      "x");
  ASSERT_TRUE(with) << with.error().message;
  EXPECT_EQ(with->nvlink_domain_hosts, 18);
  EXPECT_EQ(with->sources.at("intra.nvlink_domain_hosts"), "s");
  // Absent: NVLink ends at the host, and that is not an unknown figure.
  auto without = parse_instance_json(instance_json("nvswitch", ""), "x", "x");
  ASSERT_TRUE(without) << without.error().message;
  EXPECT_EQ(without->nvlink_domain_hosts, 1);
  EXPECT_EQ(std::count(without->unknowns.begin(), without->unknowns.end(),
                       std::string("intra.nvlink_domain_hosts")),
            0);
  auto pcie = parse_instance_json(
      instance_json("pcie", R"(, "nvlink_domain_hosts": {"value": 2, "source": "s"})"), "x", "x");
  ASSERT_FALSE(pcie);
  EXPECT_NE(pcie.error().message.find("intra.nvlink_domain_hosts: only for nvswitch"),
            std::string::npos)
      << pcie.error().message;
  auto zero = parse_instance_json(
      instance_json("nvswitch", R"(, "nvlink_domain_hosts": {"value": 0, "source": "s"})"), "x",
      "x");
  EXPECT_FALSE(zero);
}

// "src>dst" of each hop.
std::vector<std::string> hops(const Topology& t, const Route& r) {
  std::vector<std::string> out;
  for (LinkId id : r.view())
    out.push_back(t.device(t.link(id).src).name + ">" + t.device(t.link(id).dst).name);
  return out;
}

bool crosses_network(const Topology& t, const Route& r) {
  for (LinkId id : r.view())
    if (t.link(id).kind == LinkKind::Network) return true;
  return false;
}

TEST(NvLinkDomainGraph, TwoRacksOfGb200) {
  auto spec = make_cluster_spec("gb200-nvl72", 36);
  ASSERT_TRUE(spec) << spec.error().message;
  auto topo = build_topology(*spec);
  ASSERT_TRUE(topo) << topo.error().message;
  EXPECT_EQ(topo->nvlink_domain_hosts(), 18);
  EXPECT_EQ(topo->num_nvlink_domains(), 2);
  EXPECT_EQ(topo->num_ranks(), 144);
  // Host 0 to host 17 (one rack): through both hosts' NVSwitch ports and the rack's switch.
  const NodeId a = topo->gpu_of(RankId(0)), b = topo->gpu_of(RankId(17 * 4 + 3));
  const Route in_rack = topo->route(a, b);
  EXPECT_EQ(hops(*topo, in_rack),
            (std::vector<std::string>{"h0/gpu0>h0/nvswitch", "h0/nvswitch>nvldomain0",
                                      "nvldomain0>h17/nvswitch", "h17/nvswitch>h17/gpu3"}));
  // At the GPU's NVLink rate (18 x 50 GB/s) times the class efficiency: the trunk never binds.
  const Link& first = topo->link(in_rack.view()[0]);
  EXPECT_DOUBLE_EQ(in_rack.bottleneck.value, first.bandwidth.value);
  EXPECT_DOUBLE_EQ(first.nominal.value, 900e9);
  EXPECT_FALSE(topo->flow_cap(a, b));
  // Host 0 to host 18 (the other rack), and a GPU to another host's CPU: over the NICs.
  EXPECT_TRUE(crosses_network(*topo, topo->route(a, topo->gpu_of(RankId(18 * 4)))));
  EXPECT_TRUE(crosses_network(*topo, topo->route(a, topo->cpu_of_host(1))));
  // Host 0's own GPUs still meet at its NVSwitch alone.
  EXPECT_EQ(topo->route(a, topo->gpu_of(RankId(1))).size, 2);
}

TEST(NvLinkDomainGraph, PartialLastDomainAndNoDomainForOneHost) {
  auto spec = make_cluster_spec("gb200-nvl72", 20);
  ASSERT_TRUE(spec);
  auto topo = build_topology(*spec);
  ASSERT_TRUE(topo);
  EXPECT_EQ(topo->num_nvlink_domains(), 2);
  EXPECT_FALSE(crosses_network(
      *topo, topo->route(topo->gpu_of(RankId(18 * 4)), topo->gpu_of(RankId(19 * 4)))));
  EXPECT_TRUE(crosses_network(
      *topo, topo->route(topo->gpu_of(RankId(17 * 4)), topo->gpu_of(RankId(18 * 4)))));
  EXPECT_EQ(topo->host_period(), 0);  // domains of 18 and 2: no shift maps one onto the other
  auto one = build_topology(*make_cluster_spec("gb200-nvl72", 1));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->num_nvlink_domains(), 0);
  EXPECT_EQ(one->nvlink_domain_hosts(), 1);
  auto p4d = build_topology(*make_cluster_spec("p4d.24xlarge", 4));
  ASSERT_TRUE(p4d);
  EXPECT_EQ(p4d->num_nvlink_domains(), 0);
}

// Domains of 6 hosts under one switch: the cluster repeats every domain, and every link of a
// route maps (link_orbit) onto the link of the same route shifted by whole domains toward the
// first (inside one domain, and from one domain to the next over the NICs).
TEST(NvLinkDomainGraph, SymmetryIsWholeDomains) {
  auto spec = make_cluster_spec("gb200-nvl72", 18);
  ASSERT_TRUE(spec);
  spec->instance.nvlink_domain_hosts = 6;
  auto topo = build_topology(*spec);
  ASSERT_TRUE(topo);
  ASSERT_EQ(topo->host_period(), 6);
  const int g = topo->gpus_per_host();
  for (const auto& [src, dst] : {std::pair{13, 16}, std::pair{8, 14}}) {
    const Route r = topo->route(topo->gpu_of(RankId(src * g + 1)), topo->gpu_of(RankId(dst * g)));
    const int shift = src / 6 * 6;  // whole periods, so that both ends move alike
    const Route rep = topo->route(topo->gpu_of(RankId((src - shift) * g + 1)),
                                  topo->gpu_of(RankId((dst - shift) * g)));
    ASSERT_EQ(r.size, rep.size);
    for (int i = 0; i < r.size; ++i)
      EXPECT_EQ(topo->link_orbit(r.view()[i]), topo->link_orbit(rep.view()[i]))
          << src << "->" << dst << " hop " << i;
    for (int i = 0; i < r.size; ++i)
      EXPECT_EQ(topo->device_orbit(topo->link(r.view()[i]).dst),
                topo->device_orbit(topo->link(rep.view()[i]).dst));
  }
  EXPECT_FALSE(crosses_network(
      *topo, topo->route(topo->gpu_of(RankId(12 * g)), topo->gpu_of(RankId(17 * g)))));
}

// A cluster file may narrow the domain to the partition a job got; a mesh cannot have one.
TEST(NvLinkDomainGraph, ClusterFileOverride) {
  auto spec = parse_cluster_json(
      R"({"schema": "topotune.cluster/1", "instance": "gb200-nvl72", "nodes": 32,
          "overrides": {"intra.nvlink_domain_hosts": 16}})",
      "c.json");
  ASSERT_TRUE(spec) << spec.error().message;
  auto topo = build_topology(*spec);
  ASSERT_TRUE(topo);
  EXPECT_EQ(topo->num_nvlink_domains(), 2);
  EXPECT_EQ(topo->host_period(), 16);
  auto mesh = parse_cluster_json(
      R"({"schema": "topotune.cluster/1", "instance": "p3.16xlarge", "nodes": 2,
          "overrides": {"intra.nvlink_domain_hosts": 2}})",
      "c.json");
  ASSERT_TRUE(mesh);
  auto refused = build_topology(*mesh);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("only for nvswitch"), std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace topotune::topo
