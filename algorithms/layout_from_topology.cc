// The adapter from the Topology graph to a RankLayout, in its own file so that the generators
// and their tests do not need the topology library.
#include "algorithms/rank_layout.h"
#include "topology/topology.h"

namespace topotune::algo {

Expected<RankLayout> layout_from_topology(const topo::Topology& topology, int channels) {
  if (channels < 1) return fail(Errc::InvalidArgument, "channels must be at least 1");
  RankLayout l;
  l.hosts = topology.num_hosts();
  l.gpus_per_host = topology.gpus_per_host();
  for (int c = 0; c < channels; ++c) {
    l.rings.push_back(topology.ring_order(c));
    l.intra.push_back(topology.intra_host_ring(c));
  }
  TT_TRY_VOID(l.check().context("ring orders of the topology"));
  return l;
}

}  // namespace topotune::algo
