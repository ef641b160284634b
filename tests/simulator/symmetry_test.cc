// Symmetry reduction (simulator/symmetry.h) against the full simulation: on every case small
// enough to run both, the reduced run gives every transfer the same ready and end times, and
// every link the same bytes, busy and active times, to 1e-9 relative. The cases cover every
// algorithm (the ones that are not invariant under a shift, such as a parameter server on
// rank 0, must come out unreduced and equal too), catalog instances with PCIe switches shared
// by GPUs and NICs, rails by channel, TCP flow caps, GPUDirect-less staging through the CPU,
// all three placements (one switch; racks behind a 4:1-oversubscribed spine), each reduction
// model. The topology's translation itself is checked link by link and route by route.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <tuple>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "simulator/simulator.h"
#include "simulator/topology_network.h"
#include "tests/simulator/catalog_topologies.h"
#include "topology/topology.h"

namespace topotune::sim {
namespace {

bool close(double a, double b) {
  return a == b || std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

struct Counts {
  int cases = 0;
  int reduced = 0;
};

// Runs `s` on `topo` with and without the reduction and compares everything.
void expect_same(const topo::Topology& topo, const sched::Schedule& s, ReductionModel model,
                 Counts& counts) {
  SimOptions full_options;
  full_options.reduction = model;
  full_options.exploit_symmetry = false;
  SimOptions sym_options = full_options;
  sym_options.exploit_symmetry = true;
  auto full = Simulator(topo, full_options).run(s);
  auto sym = Simulator(topo, sym_options).run(s);
  ASSERT_TRUE(full) << full.error().message;
  ASSERT_TRUE(sym) << sym.error().message;
  ++counts.cases;
  if (sym->symmetry > 1) ++counts.reduced;
  EXPECT_EQ(full->symmetry, 1);
  EXPECT_TRUE(close(full->makespan.value, sym->makespan.value))
      << full->makespan.value << " vs " << sym->makespan.value;
  ASSERT_EQ(full->transfers.size(), sym->transfers.size());
  int bad = 0;
  for (std::size_t t = 0; t < full->transfers.size() && bad < 3; ++t) {
    const TransferTiming& a = full->transfers[t];
    const TransferTiming& b = sym->transfers[t];
    if (close(a.ready.value, b.ready.value) && close(a.end.value, b.end.value)) continue;
    ++bad;
    ADD_FAILURE() << "transfer " << t << ": ready " << a.ready.value << " vs " << b.ready.value
                  << ", end " << a.end.value << " vs " << b.end.value;
  }
  ASSERT_EQ(full->links.size(), sym->links.size());
  for (std::size_t l = 0; l < full->links.size() && bad < 6; ++l) {
    const LinkStats& a = full->links[l];
    const LinkStats& b = sym->links[l];
    if (close(a.bytes.as_double(), b.bytes.as_double()) && close(a.busy.value, b.busy.value) &&
        close(a.active.value, b.active.value)) {
      continue;
    }
    ++bad;
    ADD_FAILURE() << "link " << l << ": bytes " << a.bytes.value << " vs " << b.bytes.value
                  << ", active " << a.active.value << " vs " << b.active.value;
  }
}

struct Algo {
  std::string name;
  algo::AlgorithmOptions options;
};

std::vector<Algo> algorithms(int channels, int chunks) {
  std::vector<Algo> out;
  algo::AlgorithmOptions o;
  o.channels = channels;
  o.chunks = chunks;
  for (const char* name : {"ring", "tree", "rhd", "ps"}) out.push_back({name, o});
  for (const auto inner : {algo::AlgoKind::Ring, algo::AlgoKind::DbTree,
                           algo::AlgoKind::HalvingDoubling, algo::AlgoKind::ParameterServer}) {
    algo::AlgorithmOptions h = o;
    h.inner = inner;
    out.push_back({"hierarchical", h});
  }
  return out;
}

// Every algorithm the topology supports, C/K in {1/1, 2/3}, each reduction model.
void check_all(const topo::Topology& topo, const std::string& label, Counts& counts) {
  for (const auto& [channels, chunks] : {std::pair{1, 1}, std::pair{2, 3}}) {
    auto layout = algo::layout_from_topology(topo, channels);
    ASSERT_TRUE(layout) << layout.error().message;
    for (const Algo& a : algorithms(channels, chunks)) {
      auto algorithm = algo::make_algorithm(a.name, a.options);
      ASSERT_TRUE(algorithm) << algorithm.error().message;
      sched::CollectiveSpec spec;
      spec.ranks = topo.num_ranks();
      spec.bytes = Bytes(std::int64_t{3} << 20);
      auto s = (*algorithm)->generate(spec, *layout);
      if (!s) continue;  // not supported on this layout
      for (const auto model :
           {ReductionModel::Serial, ReductionModel::Overlapped, ReductionModel::Ignore}) {
        SCOPED_TRACE(label + " " + s->algorithm() + " model " +
                     std::to_string(static_cast<int>(model)));
        expect_same(topo, *s, model, counts);
      }
    }
  }
}

TEST(Symmetry, ReducedRunEqualsFullRunOnCatalogInstances) {
  Counts counts;
  for_each_catalog_topology([&counts](const topo::Topology& topo, const std::string& label) {
    check_all(topo, label, counts);
  });
  // Ring and hierarchical(ring) are shift-invariant (a third of the cases); a parameter
  // server on rank 0, a tree and XOR partners (rhd on more than two hosts) are not.
  EXPECT_GE(counts.reduced, counts.cases / 4) << counts.reduced << " of " << counts.cases;
  EXPECT_LT(counts.reduced, counts.cases);
}

// Rail-optimised racks (a leaf per group of rails, a spine): twins cross shifted leaves.
TEST(Symmetry, ReducedRunEqualsFullRunOnRailOptimisedFabrics) {
  Counts counts;
  for (const auto& [instance, rails] :
       {std::pair{"p5.48xlarge", 4}, std::pair{"p4d.24xlarge", 1}, std::pair{"p4d.24xlarge", 2}}) {
    for (const auto& [hosts, per_rack] : {std::pair{4, 2}, std::pair{6, 3}}) {
      topo::ClusterSpec spec = *topo::make_cluster_spec(instance, hosts);
      spec.fabric.hosts_per_rack = per_rack;
      spec.fabric.rails_per_leaf = rails;
      spec.fabric.oversubscription = 2;
      auto topo = topo::build_topology(spec);
      ASSERT_TRUE(topo) << topo.error().message;
      EXPECT_GT(topo->leaves_per_rack(), 1);
      EXPECT_EQ(topo->host_period(), per_rack);
      check_all(*topo, std::string(instance) + " rails " + std::to_string(rails), counts);
    }
  }
  EXPECT_GE(counts.reduced, counts.cases / 4) << counts.reduced << " of " << counts.cases;
}

// Multi-node NVLink domains (GB200 NVL72 trays): a shift by whole domains (and racks) maps
// the domain switches and their trunks onto their twins, so the reduced run equals the full.
TEST(Symmetry, ReducedRunEqualsFullRunOnNvLinkDomains) {
  Counts counts;
  for (const auto& [hosts, domain, per_rack] :
       {std::tuple{6, 3, 0}, std::tuple{8, 2, 4}, std::tuple{12, 6, 4}}) {
    topo::ClusterSpec spec = *topo::make_cluster_spec("gb200-nvl72", hosts);
    spec.instance.nvlink_domain_hosts = domain;
    spec.fabric.hosts_per_rack = per_rack;
    auto topo = topo::build_topology(spec);
    ASSERT_TRUE(topo) << topo.error().message;
    EXPECT_EQ(topo->num_nvlink_domains(), hosts / domain);
    EXPECT_EQ(topo->host_period(), per_rack == 0 ? domain : std::lcm(domain, per_rack));
    check_all(*topo, "gb200 domains of " + std::to_string(domain), counts);
  }
  EXPECT_GE(counts.reduced, counts.cases / 4) << counts.reduced << " of " << counts.cases;
}

TEST(Symmetry, ReducedRunEqualsFullRunOnUniformClusters) {
  Counts counts;
  for (int hosts : {2, 3, 5, 8, 16}) {
    for (int gpus : {1, 2, 4}) {
      auto topo = topo::make_uniform_topology(hosts, gpus, gbyte_per_sec(100), gbyte_per_sec(12.5),
                                              microseconds(2), microseconds(10));
      ASSERT_TRUE(topo) << topo.error().message;
      check_all(*topo, std::to_string(hosts) + "x" + std::to_string(gpus), counts);
    }
  }
  // As above, less the sizes that do not divide evenly over 5 hosts (twins of unequal size).
  EXPECT_GE(counts.reduced, counts.cases / 5) << counts.reduced << " of " << counts.cases;
  EXPECT_LT(counts.reduced, counts.cases);
}

// The ring and the hierarchical allreduce are what large clusters run: both must be reduced
// to one host's transfers on one switch, and to one rack's behind a spine.
TEST(Symmetry, RingAndHierarchicalAreReducedByWholeRacks) {
  auto one_switch = topo::load_instance("p4d.24xlarge", 8);
  ASSERT_TRUE(one_switch);
  EXPECT_EQ(one_switch->host_period(), 1);
  topo::ClusterSpec spec = *topo::make_cluster_spec("p4d.24xlarge", 8, topo::Placement::Cluster);
  spec.fabric.hosts_per_rack = 2;
  spec.fabric.oversubscription = 4;
  auto racks = topo::build_topology(spec);
  ASSERT_TRUE(racks);
  EXPECT_EQ(racks->host_period(), 2);
  spec.fabric.hosts_per_rack = 3;  // racks of 3, 3 and 2 hosts: no shift maps them onto each other
  auto uneven = topo::build_topology(spec);
  ASSERT_TRUE(uneven);
  EXPECT_EQ(uneven->host_period(), 0);
  for (const auto& [topo, expected] :
       {std::pair{&*one_switch, 8}, std::pair{&*racks, 4}, std::pair{&*uneven, 1}}) {
    auto layout = algo::layout_from_topology(*topo, 2);
    ASSERT_TRUE(layout);
    for (const char* name : {"ring", "hierarchical"}) {
      algo::AlgorithmOptions o;
      o.channels = 2;
      auto s = (*algo::make_algorithm(name, o))->generate({.ranks = topo->num_ranks()}, *layout);
      ASSERT_TRUE(s) << s.error().message;
      auto r = Simulator(*topo).run(*s);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->symmetry, expected) << name;
      Counts counts;
      expect_same(*topo, *s, ReductionModel::Serial, counts);
    }
  }
}

// Hand-written schedules on 4 hosts of one GPU: every rank r reduces a block into r + 1 and
// another into r + 2 (mod 4), so each GPU sums two inputs at once, from two different orbits.
// The reduced run must make those two share the GPU's reduction resource, as they do in the
// full run (each device's reductions go through its orbit's resource), whatever the model.
sched::Schedule two_neighbour_reduce(int ranks, bool break_symmetry) {
  sched::CollectiveSpec spec;
  spec.ranks = ranks;
  spec.bytes = Bytes(std::int64_t{64} << 20);
  sched::ScheduleBuilder b(spec, "two-neighbour reduce");
  const sched::Slice big{Bytes(0), Bytes(std::int64_t{32} << 20)};
  const sched::Slice small{Bytes(0), Bytes(std::int64_t{16} << 20)};
  std::vector<TransferId> first, second;
  for (int r = 0; r < ranks; ++r) {
    first.push_back(b.add(RankId(r), RankId((r + 1) % ranks), big, true));
    second.push_back(b.add(RankId(r), RankId((r + 2) % ranks), small, true));
  }
  // A second round: each rank forwards once its own first transfer is done, except that with
  // `break_symmetry` rank 1 waits for rank 0's second (smaller, earlier) transfer instead:
  // twins with dependencies in other orbits, whose times differ.
  for (int r = 0; r < ranks; ++r) {
    const TransferId dep =
        break_symmetry && r == 1 ? second[0] : first[static_cast<std::size_t>(r)];
    b.add(RankId(r), RankId((r + 1) % ranks), big, false, std::span<const TransferId>(&dep, 1));
  }
  return std::move(b).build().value();
}

TEST(Symmetry, ConcurrentReductionsOfTwinsShareTheDevice) {
  auto topo = topo::make_uniform_topology(4, 1, gbyte_per_sec(100), gbyte_per_sec(400),
                                          microseconds(2), microseconds(10));
  ASSERT_TRUE(topo);
  Counts counts;
  for (const auto model :
       {ReductionModel::Serial, ReductionModel::Overlapped, ReductionModel::Ignore}) {
    expect_same(*topo, two_neighbour_reduce(4, false), model, counts);
  }
  EXPECT_EQ(counts.reduced, 3);
}

TEST(Symmetry, TwinsWithOtherDependenciesAreNotReduced) {
  auto topo = topo::make_uniform_topology(4, 1, gbyte_per_sec(100), gbyte_per_sec(400),
                                          microseconds(2), microseconds(10));
  ASSERT_TRUE(topo);
  Counts counts;
  expect_same(*topo, two_neighbour_reduce(4, true), ReductionModel::Serial, counts);
  EXPECT_EQ(counts.reduced, 0);
}

// The translation the reduction relies on: every link has the parameters of its orbit's
// representative, every orbit has hosts / period links, and routes between shifted devices
// are the shifted routes (compared through the orbit map), for every pair and channel.
void expect_translation_invariant(const topo::Topology& t) {
  const int period = t.host_period();
  ASSERT_GT(period, 0);
  std::map<int, int> orbit_size;
  for (std::size_t l = 0; l < t.num_links(); ++l) {
    const LinkId id(static_cast<std::int32_t>(l));
    const topo::Link& a = t.link(id);
    const topo::Link& b = t.link(t.link_orbit(id));
    EXPECT_EQ(a.bandwidth.value, b.bandwidth.value);
    EXPECT_EQ(a.latency.value, b.latency.value);
    EXPECT_EQ(a.kind, b.kind);
    ++orbit_size[t.link_orbit(id).value];
  }
  for (const auto& [rep, size] : orbit_size) EXPECT_EQ(size, t.num_hosts() / period) << rep;
  std::map<std::tuple<int, int, int>, NodeId> by_place;  // (host, kind, index) -> device
  for (std::size_t d = 0; d < t.num_devices(); ++d) {
    const topo::Device& dev = t.device(NodeId(static_cast<std::int32_t>(d)));
    if (dev.host >= 0) by_place[{dev.host, static_cast<int>(dev.kind), dev.index}] = NodeId(d);
  }
  auto shifted = [&](NodeId id) {
    const topo::Device& dev = t.device(id);
    return by_place.at(
        {(dev.host + period) % t.num_hosts(), static_cast<int>(dev.kind), dev.index});
  };
  auto orbit_route = [&](const topo::Route& r) {
    std::vector<int> out;
    for (LinkId l : r.view()) out.push_back(t.link_orbit(l).value);
    return std::tuple{out, r.latency.value, r.bottleneck.value};
  };
  for (const auto& [pa, a] : by_place) {
    for (const auto& [pb, b] : by_place) {
      for (int channel : {0, 1, 2, 3}) {
        EXPECT_EQ(orbit_route(t.route(a, b, channel)),
                  orbit_route(t.route(shifted(a), shifted(b), channel)));
      }
      EXPECT_EQ(t.flow_cap(a, b), t.flow_cap(shifted(a), shifted(b)));
    }
    EXPECT_EQ(t.device_orbit(a), t.device_orbit(shifted(a)));
    EXPECT_EQ(t.reduce_bandwidth(a).value, t.reduce_bandwidth(shifted(a)).value);
  }
}

TEST(Symmetry, TopologyTranslationMapsRoutesOntoRoutes) {
  for (const auto placement :
       {topo::Placement::Cluster, topo::Placement::Partition, topo::Placement::Spread}) {
    for (const char* instance : {"p4d.24xlarge", "g4dn.12xlarge", "p3dn.24xlarge"}) {
      SCOPED_TRACE(std::string(instance) + " " + topo::placement_name(placement));
      auto topo = topo::load_instance(instance, 4, placement);
      ASSERT_TRUE(topo);
      expect_translation_invariant(*topo);
    }
  }
  for (int rails : {1, 4}) {
    topo::ClusterSpec spec = *topo::make_cluster_spec("p5.48xlarge", 6);
    spec.fabric.hosts_per_rack = 2;
    spec.fabric.rails_per_leaf = rails;
    auto topo = topo::build_topology(spec);
    ASSERT_TRUE(topo);
    SCOPED_TRACE("p5 rails_per_leaf " + std::to_string(rails));
    expect_translation_invariant(*topo);
  }
  // A super-spine above pods of 2 racks: the period is a pod, spines and pod uplinks shift.
  topo::ClusterSpec pods = *topo::make_cluster_spec("p5.48xlarge", 12);
  pods.fabric.hosts_per_rack = 2;
  pods.fabric.rails_per_leaf = 4;
  pods.fabric.racks_per_pod = 2;
  auto three = topo::build_topology(pods);
  ASSERT_TRUE(three);
  ASSERT_EQ(three->num_pods(), 3);
  ASSERT_EQ(three->host_period(), 4);
  SCOPED_TRACE("p5 with a super-spine");
  expect_translation_invariant(*three);
}

}  // namespace
}  // namespace topotune::sim
