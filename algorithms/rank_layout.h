#pragma once
// RankLayout: what a schedule generator needs to know about the cluster, and nothing more.
//
// Generators do not see the Topology graph: they take the host structure (rank r runs on host
// r / gpus_per_host, local GPU r % gpus_per_host, the Topology's convention) and the orders the
// topology discovered: for each channel, the ring order over all ranks (NVLink neighbours
// adjacent, hosts contiguous) and the ring order of the GPUs inside one host. Tests use
// flat_layout(); the CLI and tuner use layout_from_topology().

#include <vector>

#include "core/expected.h"
#include "core/strong_id.h"

namespace topotune::topo {
class Topology;
}

namespace topotune::algo {

struct RankLayout {
  int hosts = 1;
  int gpus_per_host = 1;
  /// rings[c]: all ranks in ring order for channel c (c cycles: channel c uses c % size).
  std::vector<std::vector<RankId>> rings;
  /// intra[c]: local GPU indices of one host in ring order for channel c (cycles the same way).
  std::vector<std::vector<int>> intra;

  int ranks() const { return hosts * gpus_per_host; }
  int host_of(RankId r) const { return r.value / gpus_per_host; }
  int local_index(RankId r) const { return r.value % gpus_per_host; }
  RankId rank_of(int host, int local) const { return RankId(host * gpus_per_host + local); }
  const std::vector<RankId>& ring(int channel) const {
    return rings[static_cast<std::size_t>(channel) % rings.size()];
  }
  const std::vector<int>& intra_ring(int channel) const {
    return intra[static_cast<std::size_t>(channel) % intra.size()];
  }
  /// Checks the orders are permutations of the right sizes.
  Expected<void> check() const;
};

/// Ranks 0..ranks-1 in order, `gpus_per_host` per host (ranks must be a multiple of it).
Expected<RankLayout> flat_layout(int ranks, int gpus_per_host = 1);

/// `layout` with one ring, ranks 0..n-1 in order (MPI's rings, which send to rank + 1).
RankLayout in_rank_order(RankLayout layout);

/// The layout of a built topology: rings from Topology::ring_order(c) and intra-host orders from
/// Topology::intra_host_ring(c), for c in [0, channels). Lives in its own file
/// (layout_from_topology.cc) so that generators build and test without the topology library.
Expected<RankLayout> layout_from_topology(const topo::Topology& topology, int channels);

}  // namespace topotune::algo
