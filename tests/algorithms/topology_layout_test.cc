// Generators on the layouts real topologies produce (layout_from_topology): ring orders that are
// not the identity (p3.16xlarge's NVLink cycle), several channels with different intra-host
// rings. Every algorithm's schedule is proved by the interpreter on them, and the cost
// parameters read from the topology give finite, positive closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "algorithms/cost_params.h"
#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "algorithms/schedule/interpreter.h"
#include "topology/topology.h"

namespace topotune::algo {
namespace {

TEST(TopologyLayout, EveryAlgorithmIsProvedOnCatalogInstances) {
  for (const char* instance : {"p3.16xlarge", "p4d.24xlarge", "g5.48xlarge"}) {
    for (int hosts : {1, 2, 3}) {
      auto topo = topo::load_instance(instance, hosts);
      ASSERT_TRUE(topo) << topo.error().message;
      const CostParams params = cost_params_from_topology(*topo);
      for (const std::string name : {"ring", "tree", "rhd", "ps", "hierarchical",
                                     "hierarchical:tree", "hierarchical:rhd", "hierarchical:ps"}) {
        AlgorithmOptions o;
        o.channels = 3;
        o.chunks = 2;
        auto layout = layout_from_topology(*topo, o.channels);
        ASSERT_TRUE(layout) << layout.error().message;
        sched::CollectiveSpec spec;
        spec.ranks = layout->ranks();
        spec.bytes = Bytes(4 * (1000 * spec.ranks + 7));
        auto algo = make_algorithm(name, o);
        ASSERT_TRUE(algo);
        auto s = (*algo)->generate(spec, *layout);
        ASSERT_TRUE(s) << name << " on " << instance << ": " << s.error().message;
        const auto proof = sched::verify(*s);
        EXPECT_TRUE(proof) << name << " on " << instance << " x " << hosts << ": "
                           << proof.error().message;
        const auto t = (*algo)->closed_form(spec, *layout, params);
        ASSERT_TRUE(t);
        EXPECT_TRUE(std::isfinite(t->value) && t->value > 0) << name << " on " << instance;
      }
    }
  }
}

TEST(TopologyLayout, RingOrderComesFromTheTopology) {
  auto topo = topo::load_instance("p3.16xlarge", 2);
  ASSERT_TRUE(topo);
  auto layout = layout_from_topology(*topo, 2);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->hosts, 2);
  EXPECT_EQ(layout->gpus_per_host, 8);
  for (int c = 0; c < 2; ++c) {
    const auto want = topo->ring_order(c);
    ASSERT_EQ(layout->ring(c).size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(layout->ring(c)[i], want[i]);
    EXPECT_EQ(layout->intra_ring(c), topo->intra_host_ring(c));
  }
  EXPECT_FALSE(layout_from_topology(*topo, 0));
}

}  // namespace
}  // namespace topotune::algo

namespace topotune::algo {
namespace {

TEST(TopologyLayout, NicSharingCountsGpusPerNic) {
  // Catalog: p4d has 8 GPUs and 4 NICs (2 per NIC), g5.48xlarge 8 GPUs and 1 NIC, p5 32 NICs.
  const std::pair<const char*, double> cases[] = {
      {"p4d.24xlarge", 2}, {"g5.48xlarge", 8}, {"p5.48xlarge", 1}};
  for (const auto& [instance, sharing] : cases) {
    auto topo = topo::load_instance(instance, 2);
    ASSERT_TRUE(topo) << topo.error().message;
    EXPECT_EQ(cost_params_from_topology(*topo).nic_sharing, sharing) << instance;
  }
}

}  // namespace
}  // namespace topotune::algo
