#pragma once
// Ring (chain) broadcast, pipelined: NCCL's broadcast. The root's buffer flows along the ring
// starting at the root: position j (0 = root) forwards each chunk to position j+1.
//
// Structure: the buffer is cut into C channel parts, each into K chunks; channel c uses ring
// layout.ring(c) rotated so that the root comes first. A send waits for the chunk's arrival
// and for the same position's previous send on the channel (FIFO).
// Steps (DAG depth): n-1 + K-1 (the chain plus the pipeline fill). Transfers: (n-1)·C·K.
// Bytes sent per rank: S for every rank except the last of each chain, which sends nothing.
// Closed form: T = Σ_i h_i(S/K) + (K-1)·max_i h_i(S/K) over the chain's n-1 hops, h_i = α + x·β
//   of hop i's level (cost_model.h chain_time; (n-1+K-1)·h(S/K) when all hops are alike). The C
//   channels share the links: per stage a link carries S/K bytes.

#include "algorithms/algorithm.h"

namespace topotune::algo {

class RingBroadcast final : public Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string name() const override;
  Expected<void> supports(const sched::CollectiveSpec& spec,
                          const RankLayout& layout) const override;
  Expected<sched::Schedule> generate(const sched::CollectiveSpec& spec,
                                     const RankLayout& layout) const override;
  Expected<Seconds> closed_form(const sched::CollectiveSpec& spec, const RankLayout& layout,
                                const CostParams& params) const override;
};

}  // namespace topotune::algo
