#include "algorithms/neighbor_exchange_allgather.h"

#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/phase_context.h"
#include "algorithms/rank_layout.h"
#include "algorithms/ring_half.h"
#include "core/memory_budget.h"

namespace topotune::algo {
namespace {

int mod(int a, int n) { return ((a % n) + n) % n; }

/// Rank r's neighbor at step i (coll_base_allgatherv.c: neighbor[i % 2], step 0 neighbor[0]).
int neighbor(int r, int i, int n) {
  const bool even = r % 2 == 0;
  const bool first = i % 2 == 0;
  return mod(even == first ? r + 1 : r - 1, n);
}

}  // namespace

std::string NeighborExchangeAllgather::name() const { return "allgather_neighbor_exchange"; }

Expected<void> NeighborExchangeAllgather::supports(const sched::CollectiveSpec& spec,
                                                   const RankLayout& layout) const {
  return check_common(spec, layout, {sched::Collective::Allgather});
}

Expected<sched::Schedule> NeighborExchangeAllgather::generate(const sched::CollectiveSpec& spec,
                                                              const RankLayout& layout) const {
  TT_TRY_VOID(supports(spec, layout));
  const int n = spec.ranks;
  if (n % 2 != 0) {  // "odd size, switching to ring algorithm", in rank order
    return RingHalf(AlgorithmOptions{}, RingHalf::Kind::Allgather)
        .generate(spec, in_rank_order(layout));
  }
  sched::ScheduleBuilder b(spec, name());
  const std::int64_t transfers = saturating_mul(n, n / 2);
  TT_TRY_VOID(reserve(b, transfers, saturating_mul(2, transfers)));
  const PhaseContext ctx{b, sched::dtype_size(spec.dtype)};
  const sched::Slice whole{Bytes(0), spec.bytes};
  const auto ep = [](int r) { return sched::endpoint_of(RankId(r)); };
  // sent[r], received[r]: rank r's transfers of the previous step (its sendrecv).
  std::vector<TransferId> sent(static_cast<std::size_t>(n)), received(sent.size());
  std::vector<int> pair(sent.size());  // first block of the pair r sends next
  for (int r = 0; r < n; ++r) {
    const TransferId t =
        b.add(ep(r), ep(neighbor(r, 0, n)), part(ctx, whole, r, n), false, TransferId(), 0);
    sent[static_cast<std::size_t>(r)] = t;
    received[static_cast<std::size_t>(neighbor(r, 0, n))] = t;
    pair[static_cast<std::size_t>(r)] = r % 2 == 0 ? r : r - 1;  // send_data_from
  }
  for (int i = 1; i < n / 2; ++i) {
    std::vector<TransferId> now_sent(sent.size()), now_received(sent.size());
    std::vector<int> next(sent.size());
    for (int r = 0; r < n; ++r) {
      const auto u = static_cast<std::size_t>(r);
      const int first = pair[u];  // blocks first, first + 1: adjacent, one slice
      const sched::Slice a = part(ctx, whole, first, n), c = part(ctx, whole, first + 1, n);
      const DepList deps{sent[u], received[u]};
      const int to = neighbor(r, i, n);
      const TransferId t =
          b.add(ep(r), ep(to), sched::Slice{a.offset, c.end() - a.offset}, false, deps, 0);
      now_sent[u] = t;
      now_received[static_cast<std::size_t>(to)] = t;
      next[static_cast<std::size_t>(to)] = first;  // the receiver sends this pair next
    }
    sent = now_sent;
    received = now_received;
    pair = next;
  }
  return std::move(b).build();
}

Expected<Seconds> NeighborExchangeAllgather::closed_form(const sched::CollectiveSpec& spec,
                                                         const RankLayout& layout,
                                                         const CostParams& params) const {
  TT_TRY_VOID(supports(spec, layout));
  const int n = spec.ranks;
  if (n <= 1) return Seconds(0);
  if (n % 2 != 0) {
    return RingHalf(AlgorithmOptions{}, RingHalf::Kind::Allgather)
        .closed_form(spec, in_rank_order(layout), params);
  }
  const double block = spec.bytes.as_double() / n;
  const HopCost inter = layout.gpus_per_host > 1 ? params.inter_all_gpus() : params.inter;
  double t = 0.0;
  for (int i = 0; i < n / 2; ++i) {
    std::vector<HopCost> hops;
    for (int r = 0; r < n; ++r) {
      const bool same = layout.host_of(RankId(r)) == layout.host_of(RankId(neighbor(r, i, n)));
      hops.push_back(same ? params.intra : inter);
    }
    const double bytes = i == 0 ? block : 2 * block;
    t += slowest_hop(hops, bytes).time(bytes).value;
  }
  return Seconds(t);
}

}  // namespace topotune::algo
