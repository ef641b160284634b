#pragma once
// HalvingDoublingHalf: recursive halving reduce-scatter and recursive doubling allgather, the
// two halves of the halving-doubling allreduce (halving_doubling.h) as collectives of their own
// (Thakur, Rabenseifner & Gropp 2005), one class as for RingHalf.
//
// Ranks in rank order (block r of S is rank r's, collective_spec.h), p = the largest power of
// two <= n, r = n - p. Ranks 2i and 2i+1 (i < r) form one virtual rank run by 2i+1, whose
// virtual block is block(2i) and block(2i+1) (adjacent, so contiguous); ranks 2r..n-1 are one
// virtual rank each. Virtual blocks follow rank order, so every range of them is contiguous.
// Reduce-scatter: pre-step, rank 2i reduces its whole buffer into 2i+1; halving at masks p/2,
// .., 1 (virtual rank v keeps the lower half of its range if v & mask is 0, sends the other,
// reduced by the partner); post-step, 2i+1 copies block(2i) to 2i.
// Allgather: pre-step, 2i copies block(2i) to 2i+1; doubling at masks 1, .., p/2 (each copies
// its range to its partner); post-step, 2i+1 copies everything but block(2i) to 2i.
// Steps (DAG depth): log2 p, plus 2 when n is not a power of two.
// Bytes sent per rank (n = p, n dividing the element count): (p-1)/p·S.
// Closed form: Σ over masks of hop(S·mask/p) (+ S·mask/p·γ halving), each at the slowest level
// of its pairs, plus the pre- and post-steps when r > 0.

#include "algorithms/half_algorithm.h"

namespace topotune::algo {

class HalvingDoublingHalf final : public HalfAlgorithm {
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
