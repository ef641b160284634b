#include "algorithms/hierarchical.h"

#include <utility>
#include <vector>

#include "algorithms/algorithm_family.h"
#include "algorithms/cost_model.h"
#include "algorithms/phase_context.h"
#include "algorithms/ring_allreduce.h"
#include "algorithms/ring_pass.h"
#include "core/memory_budget.h"

namespace topotune::algo {
namespace {

// Hosts in the order they appear in ring `channel` (hosts are contiguous in a ring order).
std::vector<int> host_order(const RankLayout& layout, int channel) {
  std::vector<int> hosts;
  std::vector<char> seen(static_cast<std::size_t>(layout.hosts), 0);
  for (RankId r : layout.ring(channel)) {
    const int h = layout.host_of(r);
    if (!seen[static_cast<std::size_t>(h)]) hosts.push_back(h);
    seen[static_cast<std::size_t>(h)] = 1;
  }
  return hosts;
}

// Step 1 or 3: a ring per host and channel over the local GPUs, regions = shards by local index;
// on hosts 0..hosts-1 (all of them, or the representatives of a reduced schedule).
void intra_host_half(const PhaseContext& ctx, const RankLayout& layout, const AlgorithmOptions& o,
                     bool reduce, int hosts) {
  const int G = layout.gpus_per_host;
  const sched::Slice whole{Bytes(0), ctx.builder.spec().bytes};
  std::vector<EndpointId> order(static_cast<std::size_t>(G));
  std::vector<sched::Slice> regions(static_cast<std::size_t>(G));
  for (int h = 0; h < hosts; ++h) {
    for (int c = 0; c < o.channels; ++c) {
      const std::vector<int>& intra = layout.intra_ring(c);
      for (int q = 0; q < G; ++q) {
        const int local = intra[static_cast<std::size_t>(q)];
        order[static_cast<std::size_t>(q)] = sched::endpoint_of(layout.rank_of(h, local));
        regions[static_cast<std::size_t>(q)] = part(ctx, part(ctx, whole, local, G), c, o.channels);
      }
      add_ring_pass(ctx, RingPass{order, regions, reduce, !reduce, o.chunks, c});
    }
  }
}

// Rail `local`'s shard of the buffer.
sched::Slice shard_of(const PhaseContext& ctx, const RankLayout& layout, int local) {
  return part(ctx, sched::Slice{Bytes(0), ctx.builder.spec().bytes}, local, layout.gpus_per_host);
}

// Rail `local`'s GPUs in each channel's host order.
std::vector<std::vector<EndpointId>> rail_orders(const RankLayout& layout,
                                                 const AlgorithmOptions& o, int local) {
  std::vector<std::vector<EndpointId>> orders;
  for (int c = 0; c < o.channels && c < static_cast<int>(layout.rings.size()); ++c) {
    orders.emplace_back();
    for (int h : host_order(layout, c))
      orders.back().push_back(sched::endpoint_of(layout.rank_of(h, local)));
  }
  return orders;
}

// Step 2 on rail `local`: the inner allreduce of shard `local` across hosts (`period` > 0:
// reduced, an inner ring only).
void inter_host(const PhaseContext& ctx, const RankLayout& layout, const AlgorithmOptions& o,
                int local, std::vector<EndpointId>& cpus, int period = 0) {
  const std::vector<std::vector<EndpointId>> orders = rail_orders(layout, o, local);
  InnerRail rail{layout, o, orders, shard_of(ctx, layout, local), cpus, period};
  family_of(o.inner).inner->add(ctx, rail);  // supports() checked the role exists
}

}  // namespace

std::string Hierarchical::name() const {
  std::string s = std::string("hierarchical(inner=") + inner_algorithm_name(options_.inner) +
                  ",channels=" + std::to_string(options_.channels) +
                  ",chunks=" + std::to_string(options_.chunks);
  if (family_of(options_.inner).argument == FamilyArgument::Servers) {
    s +=
        ",shards=" + (options_.shards > 0 ? std::to_string(options_.shards) : std::string("auto")) +
        ",placement=" + ps_placement_name(options_.ps_placement);
  }
  return s + ")";
}

Expected<void> Hierarchical::supports(const sched::CollectiveSpec& spec,
                                      const RankLayout& layout) const {
  TT_TRY_VOID(check_common(spec, layout, {sched::Collective::Allreduce}));
  const AlgorithmFamily& inner = family_of(options_.inner);
  if (inner.inner == nullptr) {
    return fail(Errc::InvalidArgument, inner.name + " cannot run inside hierarchical");
  }
  if (inner.argument == FamilyArgument::Servers && options_.shards > layout.hosts) {
    return fail(Errc::InvalidArgument, "hierarchical ps: " + std::to_string(options_.shards) +
                                           " shards per rail is more than the " +
                                           std::to_string(layout.hosts) + " hosts of a rail");
  }
  return {};
}

Expected<sched::Schedule> Hierarchical::generate(const sched::CollectiveSpec& spec,
                                                 const RankLayout& layout) const {
  TT_TRY_VOID(supports(spec, layout));
  sched::ScheduleBuilder b(spec, name());
  const std::int64_t G = layout.gpus_per_host;
  const std::int64_t H = layout.hosts;
  const std::int64_t CK = saturating_mul(options_.channels, options_.chunks);
  const std::int64_t estimate =
      saturating_add(saturating_product({2, CK, H, G, G > 0 ? G - 1 : 0}),
                     saturating_product({2, CK, G, H, H > 0 ? H - 1 : 0}));
  TT_TRY_VOID(reserve(
      b, estimate, saturating_add(saturating_mul(2, estimate), saturating_product({8, H, G, CK}))));
  const int elem = sched::dtype_size(spec.dtype);
  EndpointDeps after_rs, after_inter;
  std::vector<EndpointId> cpus(H);
  const PhaseContext rs{b, elem, nullptr, &after_rs};
  intra_host_half(rs, layout, options_, true, layout.hosts);
  const PhaseContext inter{b, elem, &after_rs, &after_inter};
  for (int l = 0; l < layout.gpus_per_host; ++l) inter_host(inter, layout, options_, l, cpus);
  intra_host_half(PhaseContext{b, elem, &after_inter, nullptr}, layout, options_, false,
                  layout.hosts);
  return std::move(b).build();
}

Expected<std::optional<sched::ReducedSchedule>> Hierarchical::generate_reduced(
    const sched::CollectiveSpec& spec, const RankLayout& layout, int period_hosts) const {
  TT_TRY_VOID(supports(spec, layout));
  const int P = period_hosts;
  const int G = layout.gpus_per_host;
  // Only an inner ring is written reduced (ring_allreduce_repeats checks it repeats).
  if (options_.inner != AlgoKind::Ring || P <= 0 || layout.hosts % P != 0 || layout.hosts / P < 2) {
    return std::optional<sched::ReducedSchedule>{};
  }
  // The intra-host phases repeat on every host; each rail's inner ring must repeat by P hosts.
  const int shift = P * G;
  sched::ScheduleBuilder b(spec, name());
  const int elem = sched::dtype_size(spec.dtype);
  for (int l = 0; l < G; ++l) {
    const PhaseContext check{b, elem, nullptr, nullptr, shift};
    if (!ring_allreduce_repeats(check, rail_orders(layout, options_, l), shard_of(check, layout, l),
                                options_.channels, options_.chunks, P)) {
      return std::optional<sched::ReducedSchedule>{};
    }
  }
  // generate()'s estimate with the sending hosts cut to P (ranks to P * G).
  const std::int64_t CK = saturating_mul(options_.channels, options_.chunks);
  const std::int64_t estimate = saturating_add(saturating_product({2, CK, P, G, G - 1}),
                                               saturating_product({2, CK, G, P, layout.hosts - 1}));
  TT_TRY_VOID(reserve(
      b, estimate, saturating_add(saturating_mul(2, estimate), saturating_product({8, P, G, CK}))));
  EndpointDeps after_rs, after_inter;
  std::vector<EndpointId> cpus;
  intra_host_half(PhaseContext{b, elem, nullptr, &after_rs, shift}, layout, options_, true, P);
  const PhaseContext inter{b, elem, &after_rs, &after_inter, shift};
  for (int l = 0; l < G; ++l) inter_host(inter, layout, options_, l, cpus, P);
  intra_host_half(PhaseContext{b, elem, &after_inter, nullptr, shift}, layout, options_, false, P);
  TT_TRY(sched::Schedule reps, std::move(b).build());
  return std::optional<sched::ReducedSchedule>{
      sched::ReducedSchedule{std::move(reps), shift, layout.hosts / P}};
}

}  // namespace topotune::algo

namespace topotune::algo {

Expected<Seconds> Hierarchical::closed_form(const sched::CollectiveSpec& spec,
                                            const RankLayout& layout,
                                            const CostParams& params) const {
  TT_TRY_VOID(supports(spec, layout));
  const int G = layout.gpus_per_host, K = options_.chunks;
  const double S = spec.bytes.as_double(), shard = S / G;
  const double gamma = params.gamma_gpu();
  // The G rails run at once: GPUs behind one NIC share it (CostParams::nic_sharing).
  CostParams rails = params;
  rails.inter = params.inter_all_gpus();
  double t = 0.0;
  if (G > 1) t += ring_time(G, S, K, params.intra, gamma, true, true).value;
  std::vector<RankId> rail;
  for (int h : host_order(layout, 0)) rail.push_back(layout.rank_of(h, 0));
  t += family_of(options_.inner)
           .inner->closed_form(InnerCostRail{layout, options_, rail, shard, params, rails});
  return Seconds(t);
}

}  // namespace topotune::algo
