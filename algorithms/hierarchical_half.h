#pragma once
// HierarchicalHalf: the two-level reduce-scatter and allgather, one class (as RingHalf) because
// one is the other run backwards with copies instead of reductions.
//
// Reduce-scatter on H hosts of G GPUs, rank (h, l) = h·G + l ending with block(h·G + l) of S
// summed over all ranks (collective_spec.h):
//   1. inside every host, over NVLink: a ring reduce-scatter per target host h' (H rings at
//      once, each on S/H) whose position of local GPU l owns block(h'·G + l), so GPU (h, l)
//      ends with its host's partial sums of the blocks of rail l: {block(h'·G + l) for all h'};
//   2. on every rail l, across hosts: a ring reduce-scatter of those blocks, host h' owning
//      block(h'·G + l), so GPU (h, l) ends with block(h·G + l) summed over every host.
// Each GPU sends (H-1)/H·S/G across the network on its own rail, so a host's G rails carry
// (H-1)/H·S in all, spread over its NICs; the NVLink phase moves (G-1)/G·S per GPU.
// Allgather: the mirror, rail first (GPU (h, l) gathers block(h'·G + l) of every host h'), then
// inside the host (every GPU gathers every block).
// Blocks are interleaved (rank order is host-major), so the first phase of the reduce-scatter
// and the second of the allgather run H rings per host and channel rather than one over a
// contiguous shard: (G-1)·K steps deep, H·G·(G-1)·C·K transfers per host.
// Closed form: ring_time(G, S, K) over the intra hop + ring_time(H, S/G, K) over the rail hop
// (all G rails at once share the NICs), γ on the reduce-scatter's bytes.

#include "algorithms/half_algorithm.h"

namespace topotune::algo {

class HierarchicalHalf final : public HalfAlgorithm {
 public:
  using HalfAlgorithm::HalfAlgorithm;
  std::string name() const override;
  Expected<void> supports(const sched::CollectiveSpec& spec,
                          const RankLayout& layout) const override;
  Expected<sched::Schedule> generate(const sched::CollectiveSpec& spec,
                                     const RankLayout& layout) const override;
  Expected<Seconds> closed_form(const sched::CollectiveSpec& spec, const RankLayout& layout,
                                const CostParams& params) const override;
};

}  // namespace topotune::algo
