// Reduced schedules written by the generators (Algorithm::generate_reduced) against the two
// paths they replace, on every case small enough to run all three: (a) the quotient the
// simulator derives from the full schedule (quotient_by_translation) must be the same
// schedule, transfer by transfer, and (b) simulating the representatives must give every
// transfer of the full schedule (through its orbit's representative) and every link the
// times and bytes of the full, unreduced simulation, to 1e-9 relative. Cases: ring and
// hierarchical(ring), 1 or 2 channels x 1 or 3 chunks, sizes that divide evenly and sizes
// that do not (then neither path may reduce), catalog instances in every placement, rail-
// optimised racks, uniform clusters, each reduction model.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "simulator/simulator.h"
#include "simulator/symmetry.h"
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

// The representatives written by the generator are the quotient's, field by field.
void expect_same_schedule(const sched::ReducedSchedule& direct, const Quotient& q) {
  const sched::Schedule& a = direct.representatives;
  const sched::Schedule& b = q.reduced.representatives;
  EXPECT_EQ(direct.shift_ranks, q.reduced.shift_ranks);
  EXPECT_EQ(direct.orbit_size, q.reduced.orbit_size);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t t = 0; t < a.size(); ++t) {
    const sched::Transfer& x = a.transfers()[t];
    const sched::Transfer& y = b.transfers()[t];
    const TransferId id(static_cast<std::int32_t>(t));
    const auto dx = a.deps(id);
    const auto dy = b.deps(id);
    const bool same = x.src == y.src && x.dst == y.dst && x.slice.offset == y.slice.offset &&
                      x.slice.size == y.slice.size && x.reduce == y.reduce &&
                      x.channel == y.channel &&
                      std::equal(dx.begin(), dx.end(), dy.begin(), dy.end());
    ASSERT_TRUE(same) << "representative " << t << " differs: src " << x.src.value << "/"
                      << y.src.value << " dst " << x.dst.value << "/" << y.dst.value << " deps "
                      << dx.size() << "/" << dy.size();
  }
}

// The direct run against the full run: transfer t of the full schedule against its orbit's
// representative, every link against the full run's.
void expect_same_times(const SimResult& direct, const SimResult& full, const Quotient& q) {
  EXPECT_EQ(direct.symmetry, q.reduced.orbit_size);
  EXPECT_TRUE(close(direct.makespan.value, full.makespan.value))
      << direct.makespan.value << " vs " << full.makespan.value;
  EXPECT_TRUE(close(direct.busbw.value, full.busbw.value));
  ASSERT_EQ(direct.transfers.size(), q.reduced.representatives.size());
  ASSERT_EQ(full.transfers.size(), q.orbit_of.size());
  int bad = 0;
  for (std::size_t t = 0; t < q.orbit_of.size() && bad < 3; ++t) {
    const TransferTiming& a = direct.transfers[q.orbit_of[t]];
    const TransferTiming& b = full.transfers[t];
    if (close(a.ready.value, b.ready.value) && close(a.end.value, b.end.value)) continue;
    ++bad;
    ADD_FAILURE() << "transfer " << t << ": ready " << a.ready.value << " vs " << b.ready.value
                  << ", end " << a.end.value << " vs " << b.end.value;
  }
  ASSERT_EQ(direct.links.size(), full.links.size());
  for (std::size_t l = 0; l < full.links.size() && bad < 6; ++l) {
    const LinkStats& a = direct.links[l];
    const LinkStats& b = full.links[l];
    if (close(a.bytes.as_double(), b.bytes.as_double()) && close(a.busy.value, b.busy.value) &&
        close(a.active.value, b.active.value)) {
      continue;
    }
    ++bad;
    ADD_FAILURE() << "link " << l << ": bytes " << a.bytes.value << " vs " << b.bytes.value
                  << ", busy " << a.busy.value << " vs " << b.busy.value;
  }
}

// One algorithm on one topology: the generator reduces exactly when the simulator's own check
// does, with the same representatives and the full run's times.
void check(const topo::Topology& topo, const algo::Algorithm& algorithm,
           const algo::RankLayout& layout, Bytes bytes, Counts& counts) {
  sched::CollectiveSpec spec;
  spec.ranks = topo.num_ranks();
  spec.bytes = bytes;
  auto full = algorithm.generate(spec, layout);
  ASSERT_TRUE(full) << full.error().message;
  const TopologyNetwork network(topo);
  const std::optional<Quotient> q = quotient_by_translation(*full, network);
  const int period = topo.host_period();
  auto direct = algorithm.generate_reduced(spec, layout, period);
  ASSERT_TRUE(direct) << direct.error().message;
  ++counts.cases;
  ASSERT_EQ(direct->has_value(), q.has_value()) << "period " << period;
  if (!q) return;
  ++counts.reduced;
  expect_same_schedule(**direct, *q);
  for (const auto model :
       {ReductionModel::Serial, ReductionModel::Overlapped, ReductionModel::Ignore}) {
    SCOPED_TRACE("reduction model " + std::to_string(static_cast<int>(model)));
    SimOptions full_options;
    full_options.reduction = model;
    full_options.exploit_symmetry = false;
    auto f = Simulator(topo, full_options).run(*full);
    auto d = Simulator(topo, SimOptions{.reduction = model}).run(**direct);
    ASSERT_TRUE(f) << f.error().message;
    ASSERT_TRUE(d) << d.error().message;
    expect_same_times(*d, *f, *q);
  }
}

// Ring and hierarchical(ring), C/K in {1/1, 2/3}, a size that divides evenly (3 MiB of fp32)
// and one that does not (3 MiB + 4 bytes: blocks of unequal size, not invariant).
void check_all(const topo::Topology& topo, const std::string& label, Counts& counts) {
  for (const auto& [channels, chunks] : {std::pair{1, 1}, std::pair{2, 3}}) {
    auto layout = algo::layout_from_topology(topo, channels);
    ASSERT_TRUE(layout) << layout.error().message;
    algo::AlgorithmOptions o;
    o.channels = channels;
    o.chunks = chunks;
    for (const char* name : {"ring", "hierarchical"}) {
      auto algorithm = algo::make_algorithm(name, o);
      ASSERT_TRUE(algorithm) << algorithm.error().message;
      for (const Bytes bytes : {Bytes(std::int64_t{3} << 20), Bytes((std::int64_t{3} << 20) + 4)}) {
        SCOPED_TRACE(label + " " + (*algorithm)->name() + " " + std::to_string(bytes.value));
        check(topo, **algorithm, *layout, bytes, counts);
      }
    }
  }
}

TEST(DirectQuotient, EqualsDerivedQuotientAndFullRunOnCatalogInstances) {
  Counts counts;
  for_each_catalog_topology([&counts](const topo::Topology& topo, const std::string& label) {
    check_all(topo, label, counts);
  });
  // Every case whose size divides evenly is reduced (144 of 288), none of the others.
  EXPECT_EQ(counts.cases, 288);
  EXPECT_EQ(counts.reduced * 2, counts.cases) << counts.reduced << " of " << counts.cases;
}

TEST(DirectQuotient, EqualsDerivedQuotientAndFullRunOnRailOptimisedFabrics) {
  Counts counts;
  for (const auto& [instance, rails] :
       {std::pair{"p5.48xlarge", 4}, std::pair{"p4d.24xlarge", 1}, std::pair{"p4d.24xlarge", 2}}) {
    for (const auto& [hosts, per_rack] : {std::pair{4, 2}, std::pair{6, 3}, std::pair{8, 2}}) {
      topo::ClusterSpec spec = *topo::make_cluster_spec(instance, hosts);
      spec.fabric.hosts_per_rack = per_rack;
      spec.fabric.rails_per_leaf = rails;
      spec.fabric.oversubscription = 2;
      auto topo = topo::build_topology(spec);
      ASSERT_TRUE(topo) << topo.error().message;
      ASSERT_EQ(topo->host_period(), per_rack);
      check_all(*topo, std::string(instance) + " rails " + std::to_string(rails), counts);
    }
  }
  EXPECT_EQ(counts.reduced * 2, counts.cases) << counts.reduced << " of " << counts.cases;
}

// Three tiers: pods of racks under a super-spine, oversubscribed at both switch tiers so that
// the pod uplinks are contended. The period is a pod; twins cross shifted spines.
TEST(DirectQuotient, EqualsDerivedQuotientAndFullRunUnderASuperSpine) {
  Counts counts;
  for (const auto& [instance, rails] :
       {std::pair{"p5.48xlarge", 4}, std::pair{"p4d.24xlarge", 1}}) {
    for (const auto& [hosts, pods] : {std::pair{8, 2}, std::pair{12, 3}}) {
      topo::ClusterSpec spec = *topo::make_cluster_spec(instance, hosts);
      spec.fabric.hosts_per_rack = 2;
      spec.fabric.rails_per_leaf = rails;
      spec.fabric.racks_per_pod = 2;
      spec.fabric.oversubscription = 2;
      spec.fabric.pod_oversubscription = 3;
      spec.fabric.superspine_latency = microseconds(4);
      auto topo = topo::build_topology(spec);
      ASSERT_TRUE(topo) << topo.error().message;
      ASSERT_EQ(topo->num_pods(), pods);
      ASSERT_EQ(topo->host_period(), 4);
      check_all(*topo, std::string(instance) + " pods " + std::to_string(pods), counts);
    }
  }
  EXPECT_EQ(counts.reduced * 2, counts.cases) << counts.reduced << " of " << counts.cases;
}

TEST(DirectQuotient, EqualsDerivedQuotientAndFullRunOnUniformClusters) {
  Counts counts;
  for (int hosts : {2, 3, 4, 8}) {
    for (int gpus : {1, 2, 4}) {
      auto topo = topo::make_uniform_topology(hosts, gpus, gbyte_per_sec(100), gbyte_per_sec(12.5),
                                              microseconds(2), microseconds(10));
      ASSERT_TRUE(topo) << topo.error().message;
      check_all(*topo, std::to_string(hosts) + "x" + std::to_string(gpus), counts);
    }
  }
  EXPECT_EQ(counts.reduced * 2, counts.cases) << counts.reduced << " of " << counts.cases;
}

// The memory budget counts what is built: the representatives. 64 hosts of 8 GPUs in racks of
// 2 (orbits of 32): the full hierarchical(ring) schedule does not fit a budget that its
// representatives fit.
TEST(DirectQuotient, BudgetCountsTheRepresentatives) {
  topo::ClusterSpec cluster = *topo::make_cluster_spec("p4d.24xlarge", 64);
  cluster.fabric.hosts_per_rack = 2;
  auto topo = topo::build_topology(cluster);
  ASSERT_TRUE(topo);
  ASSERT_EQ(topo->host_period(), 2);
  auto layout = algo::layout_from_topology(*topo, 1);
  ASSERT_TRUE(layout);
  algo::AlgorithmOptions o;
  // Full: 71,680 transfers, 2.9 MB; representatives: 2,240, 90 KB.
  o.memory.available = Bytes(std::int64_t{1} << 20);
  auto algorithm = algo::make_algorithm("hierarchical", o);
  ASSERT_TRUE(algorithm);
  const sched::CollectiveSpec spec{.ranks = topo->num_ranks()};
  auto full = (*algorithm)->generate(spec, *layout);
  ASSERT_FALSE(full);
  EXPECT_NE(full.error().message.find("needs"), std::string::npos) << full.error().message;
  auto direct = (*algorithm)->generate_reduced(spec, *layout, 2);
  ASSERT_TRUE(direct) << direct.error().message;
  ASSERT_TRUE(direct->has_value());
  EXPECT_EQ((*direct)->orbit_size, 32);
  auto r = Simulator(*topo).run(**direct);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->symmetry, 32);
}

// A reduced schedule runs only on a network whose translation is its shift: by one host on a
// network that repeats by two racks, the representative links would carry the flows of two
// hosts each.
TEST(DirectQuotient, RefusesANetworkWithAnotherTranslation) {
  auto one_switch = topo::load_instance("p4d.24xlarge", 4);
  ASSERT_TRUE(one_switch);
  ASSERT_EQ(one_switch->host_period(), 1);
  topo::ClusterSpec cluster = *topo::make_cluster_spec("p4d.24xlarge", 4);
  cluster.fabric.hosts_per_rack = 2;
  auto racks = topo::build_topology(cluster);
  ASSERT_TRUE(racks);
  ASSERT_EQ(racks->host_period(), 2);
  auto layout = algo::layout_from_topology(*one_switch, 1);
  ASSERT_TRUE(layout);
  auto ring = algo::make_algorithm("ring", {});
  ASSERT_TRUE(ring);
  auto direct = (*ring)->generate_reduced({.ranks = 32}, *layout, 1);
  ASSERT_TRUE(direct && direct->has_value());
  EXPECT_TRUE(Simulator(*one_switch).run(**direct));
  auto wrong = Simulator(*racks).run(**direct);
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("translation shifts 16 of 32"), std::string::npos)
      << wrong.error().message;
}

// The algorithms that write no reduced schedule say so (nullopt) rather than fail.
TEST(DirectQuotient, OtherAlgorithmsAreGeneratedInFull) {
  auto topo = topo::load_instance("p4d.24xlarge", 4);
  ASSERT_TRUE(topo);
  auto layout = algo::layout_from_topology(*topo, 1);
  ASSERT_TRUE(layout);
  for (const char* name : {"tree", "rhd", "ps"}) {
    auto a = algo::make_algorithm(name, {});
    ASSERT_TRUE(a);
    auto r = (*a)->generate_reduced({.ranks = 32}, *layout, 1);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_FALSE(r->has_value()) << name;
  }
  algo::AlgorithmOptions o;
  o.inner = algo::AlgoKind::HalvingDoubling;
  auto h = algo::make_algorithm("hierarchical", o);
  ASSERT_TRUE(h);
  auto r = (*h)->generate_reduced({.ranks = 32}, *layout, 1);
  ASSERT_TRUE(r && !r->has_value());
}

}  // namespace
}  // namespace topotune::sim
