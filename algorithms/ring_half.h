#pragma once
// RingHalf: one half of the ring allreduce as a collective of its own, the ring reduce-scatter
// or the ring allgather. One class, because the two differ only in the direction of the data
// (reduce into the region's owner, or copy from it) and in the closed form's γ term.
//
// Ring reduce-scatter: rank r ends with block(r) of S (collective_spec.h) summed over all
// ranks. block(r) is cut into C channel parts; channel c runs ring layout.ring(c) where the
// region ending at position p is part c of block(ring[p]) (ring_pass.h), chunk by chunk.
// Steps (DAG depth): (n-1)·K. Transfers: (n-1)·n·C·K.
// Bytes sent per rank: (n-1)/n·S when n divides the element count (exactly: S minus the
//   rank's own block).
// Closed form: T = (n-1)K·α + (n-1)/n·S·β + (n-1)/n·S·γ.
//
// Ring allgather: rank r starts with block(r) of S and every rank ends with every block. As
// the reduce-scatter with copies instead of reduces: the region starting at position p is
// part c of block(ring[p]).
// Steps (DAG depth): (n-1)·K. Transfers: (n-1)·n·C·K.
// Bytes sent per rank: (n-1)/n·S when n divides the element count (exactly: S minus the block
//   of the rank's ring successor, which it never forwards).
// Closed form: T = (n-1)K·α + (n-1)/n·S·β.

#include "algorithms/half_algorithm.h"

namespace topotune::algo {

/// The ring reduce-scatter or ring allgather (see the file comment).
class RingHalf final : public HalfAlgorithm {
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
