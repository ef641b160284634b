#pragma once
// Ring allreduce (NCCL's Ring; Patarasuk & Yuan 2009): a reduce-scatter ring followed by an
// allgather ring, on C channels and K pipelined chunks.
//
// Structure: the buffer of S bytes is cut into n blocks (one per ring position) and every
// block into C channel parts; channel c runs its own ring (order layout.ring(c), NVLink
// neighbours adjacent) over part c of every block, chunk by chunk (ring_pass.h).
// Steps (DAG depth): 2(n-1)·K. Transfers: 2(n-1)·n·C·K.
// Bytes sent per rank: 2(n-1)/n·S when n divides the element count (exactly: 2S minus the two
//   blocks the rank does not send, its own-position block in each half).
// Closed form (cost_model.h), n ranks, chunk c = S/(nK) moved per step over each link by the C
//   channels together (they share the link when their rings coincide):
//   T = 2(n-1)K·α + 2(n-1)/n·S·β + (n-1)/n·S·γ.

#include <span>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/phase_context.h"

namespace topotune::algo {

class RingAllreduce final : public Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string name() const override;
  Expected<void> supports(const sched::CollectiveSpec& spec,
                          const RankLayout& layout) const override;
  Expected<sched::Schedule> generate(const sched::CollectiveSpec& spec,
                                     const RankLayout& layout) const override;
  /// Reduced when every channel's ring repeats under the shift (ring order r -> r + shift
  /// position by position, the first `shift` positions the ranks below it) and the blocks'
  /// chunk sizes repeat with it.
  Expected<std::optional<sched::ReducedSchedule>> generate_reduced(
      const sched::CollectiveSpec& spec, const RankLayout& layout, int period_hosts) const override;
  Expected<Seconds> closed_form(const sched::CollectiveSpec& spec, const RankLayout& layout,
                                const CostParams& params) const override;

 private:
  /// The layout's rings of channels 0..channels-1 as endpoints.
  std::vector<std::vector<EndpointId>> orders_of(const RankLayout& layout) const;
};

/// Ring allreduce of `region` over a group: channel c (of `channels`) runs on ring
/// orders[c % orders.size()] over part c of every position's block (the hierarchical inner).
/// `period` > 0: reduced (ring_pass.h), the positions 0..period-1 of each ring only.
void add_ring_allreduce(const PhaseContext& ctx, std::span<const std::vector<EndpointId>> orders,
                        sched::Slice region, int channels, int chunks, int period = 0);

/// Whether add_ring_allreduce with `period` writes a valid reduced schedule for the context's
/// shift: every order repeats (order_repeats) and every channel's chunk sizes repeat.
bool ring_allreduce_repeats(const PhaseContext& ctx,
                            std::span<const std::vector<EndpointId>> orders, sched::Slice region,
                            int channels, int chunks, int period);

/// The slowest hop of the rings of channels 0..channels-1 for a `bytes` message.
HopCost slowest_ring_hop(const RankLayout& layout, const CostParams& params, int channels,
                         double bytes);

/// The layout's ring for channel c as endpoint ids.
std::vector<EndpointId> ring_endpoints(const RankLayout& layout, int channel);

}  // namespace topotune::algo
