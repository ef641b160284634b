#pragma once
// Hierarchical (2-level) allreduce (Horovod's hierarchical allreduce; 2-D allreduce):
//   1. intra-host reduce-scatter: on each host, a ring over its G GPUs (intra-host ring order
//      of channel c) leaves GPU l with shard l = block(S, l, G) summed over the host;
//   2. inter-host allreduce of shard l among the GPUs of local index l of every host (rail l),
//      with the inner algorithm: ring (hosts in the layout's ring order, C channels, K chunks),
//      tree (double binary tree over hosts), rhd, or ps (colocated or per-host CPU servers);
//   3. intra-host allgather: the ring of step 1 in reverse roles, so every GPU gets every shard.
// Phases chain per rank (phase_context.h): a rank's transfers in one phase wait for that rank's
// own transfers of the previous phase, not for a global barrier.
// Steps (DAG depth): (G-1)K + inner steps + (G-1)K for G > 1 (the inner alone for G = 1).
// Bytes sent per rank: 2(G-1)/G·S intra-host + the inner algorithm's figure on S/G bytes
//   among H ranks (ring: 2(H-1)/H·S/G).
// Closed form: 2(G-1)K·α_intra + 2(G-1)/G·S·β_intra + (G-1)/G·S·γ + inner(H, S/G) (inter).

#include "algorithms/algorithm.h"

namespace topotune::algo {

class Hierarchical final : public Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string name() const override;
  Expected<void> supports(const sched::CollectiveSpec& spec,
                          const RankLayout& layout) const override;
  Expected<sched::Schedule> generate(const sched::CollectiveSpec& spec,
                                     const RankLayout& layout) const override;
  /// Reduced for the inner ring when every rail's ring repeats under the shift by
  /// `period_hosts` hosts (ring_allreduce_repeats); the intra-host phases always repeat.
  Expected<std::optional<sched::ReducedSchedule>> generate_reduced(
      const sched::CollectiveSpec& spec, const RankLayout& layout, int period_hosts) const override;
  Expected<Seconds> closed_form(const sched::CollectiveSpec& spec, const RankLayout& layout,
                                const CostParams& params) const override;
};

}  // namespace topotune::algo
