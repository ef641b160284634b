#include "algorithms/ring_half.h"

#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/rank_layout.h"
#include "algorithms/ring_allreduce.h"
#include "algorithms/ring_pass.h"
#include "core/memory_budget.h"

namespace topotune::algo {
namespace {

// One ring pass per channel over all ranks, with rank-owned regions: the region of position p
// is part c of block(ring[p]).
void add_owned_ring_half(const PhaseContext& ctx, const RankLayout& layout, int channels,
                         int chunks, bool reduce) {
  const int n = layout.ranks();
  const sched::Slice whole{Bytes(0), ctx.builder.spec().bytes};
  for (int c = 0; c < channels; ++c) {
    const std::vector<EndpointId> order = ring_endpoints(layout, c);
    std::vector<sched::Slice> regions(static_cast<std::size_t>(n));
    for (int p = 0; p < n; ++p) {
      const int owner = order[static_cast<std::size_t>(p)].value;
      regions[static_cast<std::size_t>(p)] = part(ctx, part(ctx, whole, owner, n), c, channels);
    }
    add_ring_pass(ctx, RingPass{order, regions, reduce, !reduce, chunks, c});
  }
}

}  // namespace

std::string RingHalf::name() const {
  return std::string(reduce() ? "reduce_scatter_ring" : "allgather_ring") +
         "(channels=" + std::to_string(options_.channels) +
         ",chunks=" + std::to_string(options_.chunks) + ")";
}

Expected<void> RingHalf::supports(const sched::CollectiveSpec& spec,
                                  const RankLayout& layout) const {
  return check_common(spec, layout, {collective()});
}

Expected<sched::Schedule> RingHalf::generate(const sched::CollectiveSpec& spec,
                                             const RankLayout& layout) const {
  TT_TRY_VOID(supports(spec, layout));
  sched::ScheduleBuilder b(spec, name());
  const int n = layout.ranks();
  const std::int64_t transfers = saturating_product({options_.channels, options_.chunks, n - 1, n});
  TT_TRY_VOID(reserve(b, transfers, saturating_mul(2, transfers)));
  add_owned_ring_half(PhaseContext{b, sched::dtype_size(spec.dtype)}, layout, options_.channels,
                      options_.chunks, reduce());
  return std::move(b).build();
}

Expected<Seconds> RingHalf::closed_form(const sched::CollectiveSpec& spec, const RankLayout& layout,
                                        const CostParams& params) const {
  TT_TRY_VOID(supports(spec, layout));
  const double S = spec.bytes.as_double();
  const HopCost hop =
      slowest_ring_hop(layout, params, options_.channels, S / (spec.ranks * options_.chunks));
  return ring_time(spec.ranks, S, options_.chunks, hop, params.gamma_gpu(), reduce(), !reduce());
}

}  // namespace topotune::algo
