#pragma once
// The catalog clusters the symmetry tests compare reduced and full runs on: four instances
// (NVSwitch, NVLink mesh, PCIe, EFA rails) x the three placements x 2, 4 and 6 hosts.

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "topology/topology.h"

namespace topotune::sim {

/// Calls `check(topology, label)` for each of the 36 clusters.
inline void for_each_catalog_topology(
    const std::function<void(const topo::Topology&, const std::string&)>& check) {
  for (const char* instance : {"p4d.24xlarge", "p3dn.24xlarge", "g4dn.12xlarge", "p5.48xlarge"}) {
    for (const auto placement :
         {topo::Placement::Cluster, topo::Placement::Partition, topo::Placement::Spread}) {
      for (int hosts : {2, 4, 6}) {
        auto topo = topo::load_instance(instance, hosts, placement);
        ASSERT_TRUE(topo) << topo.error().message;
        check(*topo, std::string(instance) + " x " + std::to_string(hosts) + " " +
                         topo::placement_name(placement));
      }
    }
  }
}

}  // namespace topotune::sim
