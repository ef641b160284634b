// Cross-simulator check: topotune's flow simulator and SimGrid (simgrid_replay.h: the same
// schedule, network and max-min model, implemented independently) give every transfer the
// same completion time, to rounding. This is what shows the simulator right where no closed
// form is exact: the pipelined double binary tree (its stage form, tree_closed_form.cc, is an
// approximation there: closed_form_test.cc), and contention on real instance topologies.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "simulator/simulator.h"
#include "simulator/topology_network.h"
#include "tests/simulator/simgrid_replay.h"
#include "topology/topology.h"

namespace topotune::sim {
namespace {

// Relative agreement asked of every completion time. Both sides solve the same fluid model in
// double precision; SimGrid's lmm is set to 1e-13 precision (simgrid_replay.cc).
constexpr double kAgreement = 1e-9;

// Runs `schedule` on `topo` in both simulators and compares every transfer's completion time.
void expect_same_times(const topo::Topology& topo, const sched::Schedule& schedule) {
  const TopologyNetwork network(topo);
  auto ours = Simulator(network).run(schedule);
  ASSERT_TRUE(ours) << ours.error().message;
  auto theirs = testing::simgrid_completion_times(network, schedule);
  ASSERT_TRUE(theirs) << theirs.error().message;
  ASSERT_EQ(theirs->size(), schedule.size());
  double worst = 0;
  std::size_t worst_at = 0;
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const double a = ours->transfers[i].end.value, b = (*theirs)[i];
    const double err = std::abs(a - b) / std::max(b, 1e-12);
    if (err > worst) worst = err, worst_at = i;
  }
  EXPECT_LE(worst, kAgreement) << "transfer " << worst_at << ": topotune "
                               << ours->transfers[worst_at].end.value << " s, SimGrid "
                               << (*theirs)[worst_at] << " s";
  const double makespan = *std::max_element(theirs->begin(), theirs->end());
  EXPECT_NEAR(ours->makespan.value, makespan, kAgreement * makespan);
}

algo::AlgorithmOptions opts(int channels, int chunks) {
  algo::AlgorithmOptions o;
  o.channels = channels;
  o.chunks = chunks;
  return o;
}

// `name` allreduce (or `collective`) of `bytes` over the topology's ranks, generated over the
// layout the topology discovers.
sched::Schedule generate(const topo::Topology& topo, const std::string& name,
                         const algo::AlgorithmOptions& o, std::int64_t bytes,
                         sched::Collective collective = sched::Collective::Allreduce) {
  auto layout = algo::layout_from_topology(topo, o.channels);
  EXPECT_TRUE(layout) << layout.error().message;
  auto algorithm = algo::make_algorithm(name, o, collective);
  EXPECT_TRUE(algorithm) << algorithm.error().message;
  sched::CollectiveSpec spec;
  spec.collective = collective;
  spec.ranks = topo.num_ranks();
  spec.bytes = Bytes(bytes);
  auto schedule = (*algorithm)->generate(spec, *layout);
  EXPECT_TRUE(schedule) << schedule.error().message;
  return std::move(schedule).value();
}

// NVSwitch 100 GB/s and 2 us GPU to GPU; NIC 12.5 GB/s and 10 us host to host (as in
// closed_form_test.cc).
topo::Topology uniform(int hosts, int gpus) {
  auto t = topo::make_uniform_topology(hosts, gpus, gbyte_per_sec(100), gbyte_per_sec(12.5),
                                       microseconds(2), microseconds(10));
  EXPECT_TRUE(t) << t.error().message;
  return std::move(t).value();
}

TEST(SimGridOracle, PipelinedDoubleBinaryTree) {
  // The cases the stage form does not get exactly (several chunks, several GPUs per host,
  // 7 and 13 ranks), with sizes that do and do not divide evenly.
  for (const auto& [hosts, gpus] :
       {std::pair{3, 1}, {4, 1}, {7, 1}, {8, 1}, {13, 1}, {16, 1}, {4, 2}, {2, 4}, {3, 4}}) {
    for (const auto& o : {opts(1, 2), opts(1, 4), opts(1, 8), opts(2, 2)}) {
      for (std::int64_t bytes : {std::int64_t{1} << 14, std::int64_t{12345676}}) {
        SCOPED_TRACE(std::to_string(hosts) + "x" + std::to_string(gpus) +
                     " C=" + std::to_string(o.channels) + " K=" + std::to_string(o.chunks) +
                     " S=" + std::to_string(bytes));
        const topo::Topology t = uniform(hosts, gpus);
        expect_same_times(t, generate(t, "tree", o, bytes));
      }
    }
  }
}

struct Named {
  std::string name;
  algo::AlgorithmOptions options;
};

// Every registry algorithm with a few option sets (inner algorithms, server placements).
std::vector<Named> every_algorithm(int channels, int chunks) {
  std::vector<Named> all;
  const algo::AlgorithmOptions base = opts(channels, chunks);
  for (const char* name : {"ring", "tree", "rhd"}) all.push_back({name, base});
  for (const auto placement : {algo::PsPlacement::Colocated, algo::PsPlacement::Cpu}) {
    algo::AlgorithmOptions o = base;
    o.ps_placement = placement;
    all.push_back({"ps", o});
  }
  for (const auto inner : {algo::AlgoKind::Ring, algo::AlgoKind::DbTree,
                           algo::AlgoKind::HalvingDoubling, algo::AlgoKind::ParameterServer}) {
    algo::AlgorithmOptions o = base;
    o.inner = inner;
    all.push_back({"hierarchical", o});
  }
  return all;
}

void expect_every_algorithm(const topo::Topology& t, const std::string& where) {
  for (const auto& [channels, chunks] : {std::pair{1, 1}, {2, 2}}) {
    for (const Named& a : every_algorithm(channels, chunks)) {
      for (std::int64_t bytes : {std::int64_t{1} << 20, std::int64_t{12345676}}) {
        SCOPED_TRACE(where + " " + a.name +
                     " inner=" + algo::inner_algorithm_name(a.options.inner) +
                     " ps=" + algo::ps_placement_name(a.options.ps_placement) +
                     " C=" + std::to_string(channels) + " K=" + std::to_string(chunks) +
                     " S=" + std::to_string(bytes));
        expect_same_times(t, generate(t, a.name, a.options, bytes));
      }
    }
  }
}

TEST(SimGridOracle, EveryAlgorithmOnUniformClusters) {
  for (const auto& [hosts, gpus] : {std::pair{4, 2}, {3, 2}, {2, 4}, {5, 1}}) {
    expect_every_algorithm(uniform(hosts, gpus),
                           std::to_string(hosts) + "x" + std::to_string(gpus));
  }
}

TEST(SimGridOracle, RingCollectivesOtherThanAllreduce) {
  const topo::Topology t = uniform(3, 2);
  for (const auto coll : {sched::Collective::ReduceScatter, sched::Collective::Allgather,
                          sched::Collective::Broadcast}) {
    for (const auto& o : {opts(1, 1), opts(2, 4)}) {
      SCOPED_TRACE(std::string(sched::collective_name(coll)) + " C=" + std::to_string(o.channels));
      expect_same_times(t, generate(t, "ring", o, std::int64_t{12345676}, coll));
    }
  }
}

// The two-level reduce-scatter and allgather (intra-host rings per target host, then rails)
// and recursive halving / doubling (3x2: six ranks, two of them folded), on hosts of several
// GPUs and on a real topology whose NICs are shared by two GPUs.
TEST(SimGridOracle, HierarchicalAndHalvingDoublingReduceScatterAndAllgather) {
  auto p4d = topo::load_instance("p4d.24xlarge", 2);
  ASSERT_TRUE(p4d) << p4d.error().message;
  for (const auto coll : {sched::Collective::ReduceScatter, sched::Collective::Allgather}) {
    for (const auto& o : {opts(1, 1), opts(2, 2)}) {
      for (const auto& [t, where] :
           {std::pair{uniform(3, 2), "3x2"}, {uniform(2, 4), "2x4"}, {*p4d, "p4d.24xlarge x 2"}}) {
        SCOPED_TRACE(std::string(sched::collective_name(coll)) + " " + where +
                     " C=" + std::to_string(o.channels) + " K=" + std::to_string(o.chunks));
        expect_same_times(t, generate(t, "hierarchical", o, std::int64_t{12345676}, coll));
        expect_same_times(t, generate(t, "rhd", o, std::int64_t{12345676}, coll));
      }
    }
  }
}

TEST(SimGridOracle, OversubscribedRacks) {
  // Eight hosts of two GPUs, four per rack, rack uplinks oversubscribed 4:1: every algorithm's
  // cross-rack traffic contends on the uplinks.
  topo::ClusterSpec spec = uniform(8, 2).spec();
  spec.fabric.hosts_per_rack = 4;
  spec.fabric.oversubscription = 4;
  auto t = topo::build_topology(spec);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->num_racks(), 2);
  expect_every_algorithm(*t, "8x2 in 2 racks, 4:1");
}

TEST(SimGridOracle, CatalogInstances) {
  // Real topologies: p4d (PCIe switches shared by two GPUs and an EFA NIC, four NICs, rails by
  // channel), p3dn (NVLink hybrid cube mesh, one NIC) and g4dn (PCIe only, TCP with a per-flow
  // cap).
  for (const char* instance : {"p4d.24xlarge", "p3dn.24xlarge", "g4dn.12xlarge"}) {
    auto t = topo::load_instance(instance, 2);
    ASSERT_TRUE(t) << t.error().message;
    expect_every_algorithm(*t, std::string(instance) + " x 2");
  }
}

}  // namespace
}  // namespace topotune::sim
