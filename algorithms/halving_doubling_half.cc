#include "algorithms/halving_doubling_half.h"

#include <bit>
#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/halving_doubling.h"
#include "algorithms/phase_context.h"
#include "algorithms/rank_layout.h"
#include "core/memory_budget.h"

namespace topotune::algo {
namespace {

/// The virtual ranks of n ranks in rank order: p, r, and each virtual rank's first rank and
/// the rank that runs it.
struct Virtual {
  int n = 0, p = 0, r = 0;
  explicit Virtual(int ranks)
      : n(ranks), p(static_cast<int>(std::bit_floor(static_cast<unsigned>(ranks)))), r(n - p) {}
  int first(int x) const { return x < r ? 2 * x : x + r; }
  int runner(int x) const { return x < r ? 2 * x + 1 : x + r; }
};

void add_halves(sched::ScheduleBuilder& b, int elem, int n, Bytes S, bool reduce) {
  const PhaseContext ctx{b, elem};
  const sched::Slice whole{Bytes(0), S};
  const auto block = [&](int rank) { return part(ctx, whole, rank, n); };
  const auto ep = [](int rank) { return sched::endpoint_of(RankId(rank)); };
  const Virtual vr(n);
  std::vector<Bytes> edges;
  for (int x = 0; x < vr.p; ++x) edges.push_back(block(vr.first(x)).offset);
  edges.push_back(S);
  std::vector<RhdVrank> v(static_cast<std::size_t>(vr.p));
  for (int x = 0; x < vr.p; ++x) {
    RhdVrank& w = v[static_cast<std::size_t>(x)];
    w.at = ep(vr.runner(x));
    w.lo = reduce ? 0 : x;
    w.hi = reduce ? vr.p : x + 1;
    if (x < vr.r) {  // pre-step: the whole buffer reduced, or block(2x) copied, into 2x+1
      w.received = b.add(ep(2 * x), w.at, reduce ? whole : block(2 * x), reduce, TransferId(), 0);
    }
  }
  if (reduce) {
    for (int mask = vr.p / 2; mask >= 1; mask /= 2) add_rhd_exchange(ctx, v, edges, mask, true, 0);
  } else {
    for (int mask = 1; mask < vr.p; mask *= 2) add_rhd_exchange(ctx, v, edges, mask, false, 0);
  }
  for (int x = 0; x < vr.r; ++x) {  // post-step to 2x: its block, or all but its block
    const RhdVrank& me = v[static_cast<std::size_t>(x)];
    DepList deps = me.ag_received;
    if (me.sent.valid()) deps.push_back(me.sent);
    if (me.received.valid()) deps.push_back(me.received);
    const sched::Slice own = block(2 * x);
    if (reduce) {
      b.add(me.at, ep(2 * x), own, false, deps, 0);
      continue;
    }
    for (const sched::Slice s :
         {sched::Slice{Bytes(0), own.offset}, sched::Slice{own.end(), S - own.end()}}) {
      if (!s.empty()) b.add(me.at, ep(2 * x), s, false, deps, 0);
    }
  }
}

}  // namespace

std::string HalvingDoublingHalf::name() const {
  return reduce() ? "rhd_reduce_scatter" : "rhd_allgather";
}

Expected<void> HalvingDoublingHalf::supports(const sched::CollectiveSpec& spec,
                                             const RankLayout& layout) const {
  return check_common(spec, layout, {collective()});
}

Expected<sched::Schedule> HalvingDoublingHalf::generate(const sched::CollectiveSpec& spec,
                                                        const RankLayout& layout) const {
  TT_TRY_VOID(supports(spec, layout));
  sched::ScheduleBuilder b(spec, name());
  // Transfers: p·log2 p + 2r (+ r for the allgather's split post-step), each with a few deps.
  const std::int64_t transfers = rhd_transfer_bound(spec.ranks);
  TT_TRY_VOID(reserve(b, transfers, saturating_mul(3, transfers)));
  add_halves(b, sched::dtype_size(spec.dtype), spec.ranks, spec.bytes, reduce());
  return std::move(b).build();
}

Expected<Seconds> HalvingDoublingHalf::closed_form(const sched::CollectiveSpec& spec,
                                                   const RankLayout& layout,
                                                   const CostParams& params) const {
  TT_TRY_VOID(supports(spec, layout));
  const Virtual vr(spec.ranks);
  if (vr.n <= 1) return Seconds(0);
  const double S = spec.bytes.as_double();
  // Every rank exchanges at every step: with several GPUs per host they all cross the network
  // at once and share the host's NICs.
  const HopCost inter = layout.gpus_per_host > 1 ? params.inter_all_gpus() : params.inter;
  const auto level = [&](int a, int b) {
    return layout.host_of(RankId(a)) == layout.host_of(RankId(b)) ? params.intra : inter;
  };
  const double gamma = reduce() ? params.gamma_gpu() : 0.0;
  double t = 0.0;
  for (int mask = 1; mask < vr.p; mask *= 2) {
    std::vector<HopCost> hops;
    for (int x = 0; x < vr.p; ++x) hops.push_back(level(vr.runner(x), vr.runner(x ^ mask)));
    const double bytes = S * mask / vr.p;  // a range of `mask` virtual blocks crosses
    t += slowest_hop(hops, bytes).time(bytes).value + bytes * gamma;
  }
  if (vr.r > 0) {
    std::vector<HopCost> hops;
    for (int i = 0; i < vr.r; ++i) hops.push_back(level(2 * i, 2 * i + 1));
    const double block = S / vr.n;
    const double pre = reduce() ? S : block, post = reduce() ? block : S - block;
    t += slowest_hop(hops, pre).time(pre).value + pre * gamma +
         slowest_hop(hops, post).time(post).value;
  }
  return Seconds(t);
}

}  // namespace topotune::algo
