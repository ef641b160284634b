#include "algorithms/ring_allreduce.h"

#include <utility>

#include "algorithms/cost_model.h"
#include "algorithms/ring_pass.h"
#include "core/memory_budget.h"

namespace topotune::algo {

std::vector<EndpointId> ring_endpoints(const RankLayout& layout, int channel) {
  std::vector<EndpointId> out;
  out.reserve(static_cast<std::size_t>(layout.ranks()));
  for (RankId r : layout.ring(channel)) out.push_back(sched::endpoint_of(r));
  return out;
}

namespace {

// Channel c's regions: part c of every position's block of `region`.
std::vector<sched::Slice> channel_regions(const PhaseContext& ctx, sched::Slice region, int n,
                                          int c, int channels) {
  std::vector<sched::Slice> regions(static_cast<std::size_t>(n));
  for (int p = 0; p < n; ++p) {
    regions[static_cast<std::size_t>(p)] = part(ctx, part(ctx, region, p, n), c, channels);
  }
  return regions;
}

const std::vector<EndpointId>& channel_order(std::span<const std::vector<EndpointId>> orders,
                                             int c) {
  return orders[static_cast<std::size_t>(c) % orders.size()];
}

}  // namespace

void add_ring_allreduce(const PhaseContext& ctx, std::span<const std::vector<EndpointId>> orders,
                        sched::Slice region, int channels, int chunks, int period) {
  for (int c = 0; c < channels; ++c) {
    const std::vector<EndpointId>& order = channel_order(orders, c);
    const std::vector<sched::Slice> regions =
        channel_regions(ctx, region, static_cast<int>(order.size()), c, channels);
    add_ring_pass(ctx, RingPass{order, regions, true, true, chunks, c, period});
  }
}

bool ring_allreduce_repeats(const PhaseContext& ctx,
                            std::span<const std::vector<EndpointId>> orders, sched::Slice region,
                            int channels, int chunks, int period) {
  for (int c = 0; c < channels; ++c) {
    const std::vector<EndpointId>& order = channel_order(orders, c);
    const int n = static_cast<int>(order.size());
    if (!order_repeats(order, period, ctx.shift_ranks)) return false;
    const std::vector<sched::Slice> regions = channel_regions(ctx, region, n, c, channels);
    if (!ring_pass_is_periodic(ctx, RingPass{order, regions, true, true, chunks, c}, period)) {
      return false;
    }
  }
  return true;
}

std::string RingAllreduce::name() const {
  return "ring(channels=" + std::to_string(options_.channels) +
         ",chunks=" + std::to_string(options_.chunks) + ")";
}

Expected<void> RingAllreduce::supports(const sched::CollectiveSpec& spec,
                                       const RankLayout& layout) const {
  return check_common(spec, layout, {sched::Collective::Allreduce});
}

Expected<sched::Schedule> RingAllreduce::generate(const sched::CollectiveSpec& spec,
                                                  const RankLayout& layout) const {
  TT_TRY_VOID(supports(spec, layout));
  sched::ScheduleBuilder b(spec, name());
  const int n = spec.ranks;
  const std::int64_t transfers =
      saturating_product({options_.channels, options_.chunks, 2, n - 1, n});
  TT_TRY_VOID(reserve(b, transfers, saturating_mul(2, transfers)));
  PhaseContext ctx{b, sched::dtype_size(spec.dtype)};
  add_ring_allreduce(ctx, orders_of(layout), sched::Slice{Bytes(0), spec.bytes}, options_.channels,
                     options_.chunks);
  return std::move(b).build();
}

Expected<std::optional<sched::ReducedSchedule>> RingAllreduce::generate_reduced(
    const sched::CollectiveSpec& spec, const RankLayout& layout, int period_hosts) const {
  TT_TRY_VOID(supports(spec, layout));
  const int n = spec.ranks;
  const int shift = period_hosts * layout.gpus_per_host;
  if (period_hosts <= 0 || layout.hosts % period_hosts != 0 || layout.hosts / period_hosts < 2) {
    return std::optional<sched::ReducedSchedule>{};
  }
  sched::ScheduleBuilder b(spec, name());
  PhaseContext ctx{b, sched::dtype_size(spec.dtype), nullptr, nullptr, shift};
  const std::vector<std::vector<EndpointId>> orders = orders_of(layout);
  const sched::Slice whole{Bytes(0), spec.bytes};
  if (!ring_allreduce_repeats(ctx, orders, whole, options_.channels, options_.chunks, shift)) {
    return std::optional<sched::ReducedSchedule>{};
  }
  const std::int64_t transfers =
      saturating_product({options_.channels, options_.chunks, 2, n - 1, shift});
  TT_TRY_VOID(reserve(b, transfers, saturating_mul(2, transfers)));
  add_ring_allreduce(ctx, orders, whole, options_.channels, options_.chunks, shift);
  TT_TRY(sched::Schedule reps, std::move(b).build());
  return std::optional<sched::ReducedSchedule>{
      sched::ReducedSchedule{std::move(reps), shift, n / shift}};
}

std::vector<std::vector<EndpointId>> RingAllreduce::orders_of(const RankLayout& layout) const {
  std::vector<std::vector<EndpointId>> orders;
  for (int c = 0; c < options_.channels && c < static_cast<int>(layout.rings.size()); ++c) {
    orders.push_back(ring_endpoints(layout, c));
  }
  return orders;
}

}  // namespace topotune::algo

namespace topotune::algo {

HopCost slowest_ring_hop(const RankLayout& layout, const CostParams& params, int channels,
                         double bytes) {
  std::vector<HopCost> hops;
  for (int c = 0; c < channels; ++c) {
    const auto h = ring_hops(layout.ring(c), layout, params);
    hops.insert(hops.end(), h.begin(), h.end());
  }
  return slowest_hop(hops, bytes);
}

Expected<Seconds> RingAllreduce::closed_form(const sched::CollectiveSpec& spec,
                                             const RankLayout& layout,
                                             const CostParams& params) const {
  TT_TRY_VOID(supports(spec, layout));
  const double S = spec.bytes.as_double();
  const HopCost hop =
      slowest_ring_hop(layout, params, options_.channels, S / (spec.ranks * options_.chunks));
  return ring_time(spec.ranks, S, options_.chunks, hop, params.gamma_gpu(), true, true);
}

}  // namespace topotune::algo
