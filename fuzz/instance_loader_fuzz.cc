// libFuzzer target: bytes -> the instance and cluster JSON parsers, and, when a cluster spec
// parses, the topology builder. Any crash, hang, leak or sanitizer report is a bug: bad input
// must come back as an Error.

#include <cstddef>
#include <cstdint>
#include <string>

#include "topology/cluster_spec.h"
#include "topology/instance_loader.h"
#include "topology/topology.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto inst = topotune::topo::parse_instance_json(text, "fuzz.json");
  if (inst) {
    // Small host counts keep each run fast; the builder's checks are what is exercised.
    auto spec = topotune::topo::make_cluster_spec(*inst, 2, topotune::topo::Placement::Spread);
    if (spec) (void)topotune::topo::build_topology(*spec);
  }
  auto cluster = topotune::topo::parse_cluster_json(text, "fuzz-cluster.json");
  if (cluster && cluster->hosts <= 64) (void)topotune::topo::build_topology(*cluster);
  return 0;
}
