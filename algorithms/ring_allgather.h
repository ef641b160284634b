#pragma once
// Ring allgather: the second half of the ring allreduce as a collective of its own. Rank r
// starts with block(r) of S and every rank ends with every block.
//
// Structure: as the ring reduce-scatter (ring_reduce_scatter.h) with copies instead of reduces:
// the region starting at position p is part c of block(ring[p]).
// Steps (DAG depth): (n-1)·K. Transfers: (n-1)·n·C·K.
// Bytes sent per rank: (n-1)/n·S when n divides the element count (exactly: S minus the block
//   of the rank's ring successor, which it never forwards).
// Closed form: T = (n-1)K·α + (n-1)/n·S·β.

#include "algorithms/algorithm.h"

namespace topotune::algo {

class RingAllgather final : public Algorithm {
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
