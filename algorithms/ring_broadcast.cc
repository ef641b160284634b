#include "algorithms/ring_broadcast.h"

#include <algorithm>
#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/phase_context.h"
#include "core/memory_budget.h"

namespace topotune::algo {

std::string RingBroadcast::name() const {
  return "broadcast_ring(channels=" + std::to_string(options_.channels) +
         ",chunks=" + std::to_string(options_.chunks) + ")";
}

Expected<void> RingBroadcast::supports(const sched::CollectiveSpec& spec,
                                       const RankLayout& layout) const {
  return check_common(spec, layout, {sched::Collective::Broadcast});
}

Expected<sched::Schedule> RingBroadcast::generate(const sched::CollectiveSpec& spec,
                                                  const RankLayout& layout) const {
  TT_TRY_VOID(supports(spec, layout));
  sched::ScheduleBuilder b(spec, name());
  const int n = spec.ranks, C = options_.channels, K = options_.chunks;
  TT_TRY_VOID(reserve(b, saturating_product({C, K, n - 1}), saturating_product({2, C, K, n - 1})));
  PhaseContext ctx{b, sched::dtype_size(spec.dtype)};
  const sched::Slice whole{Bytes(0), spec.bytes};
  std::vector<TransferId> tail(static_cast<std::size_t>(n)), got(tail);
  DepList deps;
  for (int c = 0; c < C; ++c) {
    std::vector<RankId> chain = layout.ring(c);
    std::rotate(chain.begin(), std::find(chain.begin(), chain.end(), spec.root), chain.end());
    std::fill(tail.begin(), tail.end(), TransferId());
    const sched::Slice channel_part = part(ctx, whole, c, C);
    for (int k = 0; k < K; ++k) {
      const sched::Slice chunk = part(ctx, channel_part, k, K);
      for (int j = 0; j + 1 < n; ++j) {
        deps.clear();
        if (tail[static_cast<std::size_t>(j)].valid())
          deps.push_back(tail[static_cast<std::size_t>(j)]);
        if (j > 0) deps.push_back(got[static_cast<std::size_t>(j)]);
        const TransferId t = b.add(chain[static_cast<std::size_t>(j)],
                                   chain[static_cast<std::size_t>(j + 1)], chunk, false, deps, c);
        tail[static_cast<std::size_t>(j)] = t;
        got[static_cast<std::size_t>(j + 1)] = t;
      }
    }
  }
  return std::move(b).build();
}

}  // namespace topotune::algo

namespace topotune::algo {

Expected<Seconds> RingBroadcast::closed_form(const sched::CollectiveSpec& spec,
                                             const RankLayout& layout,
                                             const CostParams& params) const {
  TT_TRY_VOID(supports(spec, layout));
  // Each channel's chain pays its own hops (chain_time over them); the C channels' chains
  // share the links (assumed to coincide, as for the ring): per stage a link carries S/K.
  double t = 0.0;
  for (int c = 0; c < options_.channels; ++c) {
    std::vector<RankId> chain = layout.ring(c);
    std::rotate(chain.begin(), std::find(chain.begin(), chain.end(), spec.root), chain.end());
    std::vector<HopCost> hops = ring_hops(chain, layout, params);
    hops.pop_back();  // the hop back into the root is not used
    t = std::max(t, chain_time(hops, spec.bytes.as_double(), options_.chunks).value);
  }
  return Seconds(t);
}

}  // namespace topotune::algo
