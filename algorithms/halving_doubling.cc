#include "algorithms/halving_doubling.h"

#include <algorithm>
#include <bit>

#include "algorithms/cost_model.h"
#include "core/memory_budget.h"

namespace topotune::algo {

// One halving (reduce, send the half the partner keeps) or doubling (copy the owned range)
// exchange at `mask` among the p virtual ranks.
void add_rhd_exchange(const PhaseContext& ctx, std::vector<RhdVrank>& v,
                      const std::vector<Bytes>& edges, int mask, bool halving, int channel) {
  const int p = static_cast<int>(v.size());
  const auto range = [&edges](int a, int b) {
    return sched::Slice{edges[static_cast<std::size_t>(a)],
                        edges[static_cast<std::size_t>(b)] - edges[static_cast<std::size_t>(a)]};
  };
  std::vector<TransferId> got(static_cast<std::size_t>(p));
  DepList deps;
  for (int x = 0; x < p; ++x) {
    RhdVrank& me = v[static_cast<std::size_t>(x)];
    const RhdVrank& peer = v[static_cast<std::size_t>(x ^ mask)];
    int a = me.lo, b = me.hi;
    if (halving) {
      const int mid = (me.lo + me.hi) / 2;
      if ((x & mask) == 0)
        a = mid;
      else
        b = mid;
    }
    deps.clear();
    if (me.sent.valid()) deps.push_back(me.sent);
    if (me.received.valid()) deps.push_back(me.received);
    // Like MPI_Sendrecv: the partner has finished its previous receive, so its ingress
    // carries one transfer at a time (no self-contention in the simulator).
    if (peer.received.valid()) deps.push_back(peer.received);
    // Halving writes into the partner, whose previous phase need not be our ancestor yet.
    if (halving) {
      ctx.add_entry(deps, me.at);
      ctx.add_entry(deps, peer.at);
    }
    me.sent = ctx.builder.add(me.at, peer.at, range(a, b), halving, deps, channel);
    got[static_cast<std::size_t>(x ^ mask)] = me.sent;
  }
  for (int x = 0; x < p; ++x) {
    RhdVrank& me = v[static_cast<std::size_t>(x)];
    me.received = got[static_cast<std::size_t>(x)];
    if (halving) {
      const int mid = (me.lo + me.hi) / 2;
      if ((x & mask) == 0)
        me.hi = mid;
      else
        me.lo = mid;
    } else {
      me.ag_received.push_back(me.received);
      const RhdVrank& peer = v[static_cast<std::size_t>(x ^ mask)];
      me.lo = std::min(me.lo, peer.lo);
      me.hi = std::max(me.hi, peer.hi);
    }
  }
}

void add_rhd_allreduce(const PhaseContext& ctx, const std::vector<EndpointId>& order,
                       sched::Slice region, int channel) {
  const int n = static_cast<int>(order.size());
  if (n == 1) {
    ctx.pass_through(order[0]);
    return;
  }
  const int p = static_cast<int>(std::bit_floor(static_cast<unsigned>(n)));
  const int r = n - p;
  const auto at = [&](int i) { return order[static_cast<std::size_t>(i)]; };
  std::vector<Bytes> edges;  // the p blocks of the region
  for (int x = 0; x < p; ++x) edges.push_back(part(ctx, region, x, p).offset);
  edges.push_back(region.end());
  std::vector<RhdVrank> v(static_cast<std::size_t>(p));
  DepList deps;
  for (int x = 0; x < p; ++x) {
    RhdVrank& w = v[static_cast<std::size_t>(x)];
    w.at = at(x < r ? 2 * x + 1 : x + r);
    w.hi = p;
    if (x >= r) continue;
    deps.clear();  // pre-step: fold position 2x into 2x+1
    ctx.add_entry(deps, at(2 * x));
    ctx.add_entry(deps, at(2 * x + 1));
    w.received = ctx.builder.add(at(2 * x), w.at, region, true, deps, channel);
  }
  for (int mask = p / 2; mask >= 1; mask /= 2) add_rhd_exchange(ctx, v, edges, mask, true, channel);
  for (int mask = 1; mask < p; mask *= 2) add_rhd_exchange(ctx, v, edges, mask, false, channel);
  for (int x = 0; x < r; ++x) {  // post-step: copy the result back to 2x
    RhdVrank& me = v[static_cast<std::size_t>(x)];
    deps = me.ag_received;
    deps.push_back(me.sent);
    const TransferId t = ctx.builder.add(me.at, at(2 * x), region, false, deps, channel);
    ctx.add_exit(at(2 * x), t);
    ctx.add_exit(me.at, t);
  }
  for (const RhdVrank& me : v) {
    ctx.add_exit(me.at, me.sent);
    for (TransferId t : me.ag_received) ctx.add_exit(me.at, t);
  }
}

std::int64_t rhd_transfer_bound(std::int64_t n) {
  return saturating_product(
      {2, n, static_cast<std::int64_t>(std::bit_width(static_cast<std::uint64_t>(n))) + 1});
}

std::string HalvingDoubling::name() const { return "rhd"; }

Expected<void> HalvingDoubling::supports(const sched::CollectiveSpec& spec,
                                         const RankLayout& layout) const {
  return check_common(spec, layout, {sched::Collective::Allreduce});
}

Expected<sched::Schedule> HalvingDoubling::generate(const sched::CollectiveSpec& spec,
                                                    const RankLayout& layout) const {
  TT_TRY_VOID(supports(spec, layout));
  sched::ScheduleBuilder b(spec, name());
  const std::int64_t transfers = rhd_transfer_bound(spec.ranks);  // each has a few deps
  TT_TRY_VOID(reserve(b, transfers, saturating_mul(3, transfers)));
  std::vector<EndpointId> order;
  for (RankId r : layout.ring(0)) order.push_back(sched::endpoint_of(r));
  add_rhd_allreduce(PhaseContext{b, sched::dtype_size(spec.dtype)}, order,
                    sched::Slice{Bytes(0), spec.bytes}, 0);
  return std::move(b).build();
}

}  // namespace topotune::algo

namespace topotune::algo {

Seconds rhd_closed_form(const std::vector<RankId>& order, double bytes, const RankLayout& layout,
                        const CostParams& params) {
  const int n = static_cast<int>(order.size());
  if (n <= 1) return Seconds(0);
  const int p = static_cast<int>(std::bit_floor(static_cast<unsigned>(n)));
  const int r = n - p;
  const auto at = [&](int x) { return order[static_cast<std::size_t>(x < r ? 2 * x + 1 : x + r)]; };
  // Every rank exchanges at every step: with several GPUs per host they all cross the network
  // at once and share the host's NICs.
  const HopCost inter = layout.gpus_per_host > 1 ? params.inter_all_gpus() : params.inter;
  const auto level = [&](RankId a, RankId b) {
    return layout.host_of(a) == layout.host_of(b) ? params.intra : inter;
  };
  double t = 0.0;
  for (int mask = 1; mask < p; mask *= 2) {
    std::vector<HopCost> hops;
    for (int x = 0; x < p; ++x) hops.push_back(level(at(x), at(x ^ mask)));
    const double b = bytes * mask / p;  // a range of `mask` blocks crosses at this mask
    const HopCost hop = slowest_hop(hops, b);
    t += 2 * hop.time(b).value + b * params.gamma_gpu();  // once halving, once doubling
  }
  if (r > 0) {
    std::vector<HopCost> hops;
    for (int i = 0; i < r; ++i) {
      hops.push_back(level(order[static_cast<std::size_t>(2 * i)],
                           order[static_cast<std::size_t>(2 * i + 1)]));
    }
    const HopCost hop = slowest_hop(hops, bytes);
    t += 2 * hop.time(bytes).value + bytes * params.gamma_gpu();
  }
  return Seconds(t);
}

Expected<Seconds> HalvingDoubling::closed_form(const sched::CollectiveSpec& spec,
                                               const RankLayout& layout,
                                               const CostParams& params) const {
  TT_TRY_VOID(supports(spec, layout));
  return rhd_closed_form(layout.ring(0), spec.bytes.as_double(), layout, params);
}

}  // namespace topotune::algo
