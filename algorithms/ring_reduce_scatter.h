#pragma once
// Ring reduce-scatter: the first half of the ring allreduce as a collective of its own. Rank r
// ends with block(r) of S (collective_spec.h) summed over all ranks.
//
// Structure: block(r) is cut into C channel parts; channel c runs ring layout.ring(c) where
// the region ending at position p is part c of block(ring[p]) (ring_pass.h), chunk by chunk.
// Steps (DAG depth): (n-1)·K. Transfers: (n-1)·n·C·K.
// Bytes sent per rank: (n-1)/n·S when n divides the element count (exactly: S minus the
//   rank's own block).
// Closed form: T = (n-1)K·α + (n-1)/n·S·β + (n-1)/n·S·γ.

#include "algorithms/algorithm.h"

namespace topotune::algo {

class RingReduceScatter final : public Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string name() const override;
  Expected<void> supports(const sched::CollectiveSpec& spec, const RankLayout& layout) const override;
  Expected<sched::Schedule> generate(const sched::CollectiveSpec& spec,
                                     const RankLayout& layout) const override;
  Expected<Seconds> closed_form(const sched::CollectiveSpec& spec, const RankLayout& layout,
                                const CostParams& params) const override;
};

}  // namespace topotune::algo
