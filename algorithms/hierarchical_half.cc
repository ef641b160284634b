#include "algorithms/hierarchical_half.h"

#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/phase_context.h"
#include "algorithms/rank_layout.h"
#include "algorithms/ring_allreduce.h"
#include "algorithms/ring_pass.h"
#include "core/memory_budget.h"

namespace topotune::algo {
namespace {

// Part `channel` of rank r's block of the whole buffer.
sched::Slice block_part(const PhaseContext& ctx, const RankLayout& layout, RankId r, int channel,
                        int channels) {
  const sched::Slice whole{Bytes(0), ctx.builder.spec().bytes};
  return part(ctx, part(ctx, whole, r.value, layout.ranks()), channel, channels);
}

// Inside every host: per channel and target host h', a ring over the host's GPUs (in the
// channel's intra order) whose position of local GPU l holds block(rank_of(h', l)).
void intra_hosts(const PhaseContext& ctx, const RankLayout& layout, const AlgorithmOptions& o,
                 bool reduce) {
  const int G = layout.gpus_per_host;
  std::vector<EndpointId> order(static_cast<std::size_t>(G));
  std::vector<sched::Slice> regions(static_cast<std::size_t>(G));
  for (int h = 0; h < layout.hosts; ++h) {
    for (int c = 0; c < o.channels; ++c) {
      const std::vector<int>& intra = layout.intra_ring(c);
      for (int target = 0; target < layout.hosts; ++target) {
        for (int q = 0; q < G; ++q) {
          const int local = intra[static_cast<std::size_t>(q)];
          order[static_cast<std::size_t>(q)] = sched::endpoint_of(layout.rank_of(h, local));
          regions[static_cast<std::size_t>(q)] =
              block_part(ctx, layout, layout.rank_of(target, local), c, o.channels);
        }
        add_ring_pass(ctx, RingPass{order, regions, reduce, !reduce, o.chunks, c});
      }
    }
  }
}

// On every rail l: a ring over the hosts (in each channel's host order) whose position of host
// h holds block(rank_of(h, l)).
void rails(const PhaseContext& ctx, const RankLayout& layout, const AlgorithmOptions& o,
           bool reduce) {
  std::vector<EndpointId> order;
  std::vector<sched::Slice> regions;
  for (int l = 0; l < layout.gpus_per_host; ++l) {
    for (int c = 0; c < o.channels; ++c) {
      order.clear();
      regions.clear();
      std::vector<char> seen(static_cast<std::size_t>(layout.hosts), 0);
      for (RankId r : layout.ring(c)) {  // hosts in the order channel c's ring visits them
        const int h = layout.host_of(r);
        if (seen[static_cast<std::size_t>(h)]) continue;
        seen[static_cast<std::size_t>(h)] = 1;
        order.push_back(sched::endpoint_of(layout.rank_of(h, l)));
        regions.push_back(block_part(ctx, layout, layout.rank_of(h, l), c, o.channels));
      }
      add_ring_pass(ctx, RingPass{order, regions, reduce, !reduce, o.chunks, c});
    }
  }
}

}  // namespace

std::string HierarchicalHalf::name() const {
  return std::string(reduce() ? "hierarchical_reduce_scatter" : "hierarchical_allgather") +
         "(channels=" + std::to_string(options_.channels) +
         ",chunks=" + std::to_string(options_.chunks) + ")";
}

Expected<void> HierarchicalHalf::supports(const sched::CollectiveSpec& spec,
                                          const RankLayout& layout) const {
  TT_TRY_VOID(check_common(spec, layout, {collective()}));
  if (options_.inner != AlgoKind::Ring) {
    return fail(Errc::InvalidArgument, std::string("hierarchical ") +
                                           sched::collective_name(spec.collective) +
                                           " runs a ring across hosts (inner=ring), not " +
                                           inner_algorithm_name(options_.inner));
  }
  return {};
}

Expected<sched::Schedule> HierarchicalHalf::generate(const sched::CollectiveSpec& spec,
                                                     const RankLayout& layout) const {
  TT_TRY_VOID(supports(spec, layout));
  sched::ScheduleBuilder b(spec, name());
  const std::int64_t G = layout.gpus_per_host, H = layout.hosts;
  const std::int64_t CK = saturating_mul(options_.channels, options_.chunks);
  const std::int64_t transfers = saturating_add(saturating_product({CK, H, H, G, G - 1}),
                                                saturating_product({CK, G, H, H - 1}));
  TT_TRY_VOID(reserve(b, transfers, saturating_mul(2, transfers)));
  const int elem = sched::dtype_size(spec.dtype);
  EndpointDeps between;
  if (reduce()) {
    intra_hosts(PhaseContext{b, elem, nullptr, &between}, layout, options_, true);
    rails(PhaseContext{b, elem, &between, nullptr}, layout, options_, true);
  } else {
    rails(PhaseContext{b, elem, nullptr, &between}, layout, options_, false);
    intra_hosts(PhaseContext{b, elem, &between, nullptr}, layout, options_, false);
  }
  return std::move(b).build();
}

Expected<Seconds> HierarchicalHalf::closed_form(const sched::CollectiveSpec& spec,
                                                const RankLayout& layout,
                                                const CostParams& params) const {
  TT_TRY_VOID(supports(spec, layout));
  const int G = layout.gpus_per_host, H = layout.hosts, K = options_.chunks;
  const double S = spec.bytes.as_double();
  const double gamma = params.gamma_gpu();
  double t = 0.0;
  if (G > 1) t += ring_time(G, S, K, params.intra, gamma, reduce(), !reduce()).value;
  if (H > 1) {
    t += ring_time(H, S / G, K, params.inter_all_gpus(), gamma, reduce(), !reduce()).value;
  }
  return Seconds(t);
}

}  // namespace topotune::algo
