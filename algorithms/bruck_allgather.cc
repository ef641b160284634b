#include "algorithms/bruck_allgather.h"

#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/phase_context.h"
#include "algorithms/rank_layout.h"
#include "core/memory_budget.h"

namespace topotune::algo {
namespace {

/// Blocks sent at distance d: d while d <= n/2, the n-d left over at a last, shorter step.
int blocks_at(int d, int n) { return d <= n / 2 ? d : n - d; }

}  // namespace

std::string BruckAllgather::name() const { return "allgather_bruck"; }

Expected<void> BruckAllgather::supports(const sched::CollectiveSpec& spec,
                                        const RankLayout& layout) const {
  return check_common(spec, layout, {sched::Collective::Allgather});
}

Expected<sched::Schedule> BruckAllgather::generate(const sched::CollectiveSpec& spec,
                                                   const RankLayout& layout) const {
  TT_TRY_VOID(supports(spec, layout));
  const int n = spec.ranks;
  sched::ScheduleBuilder b(spec, name());
  int steps = 0;
  for (int d = 1; d < n; d <<= 1) ++steps;
  // At most two transfers a rank and step (a wrapped run of blocks), each with at most four
  // dependencies (the previous step's sends and receives).
  const std::int64_t transfers = saturating_mul(saturating_mul(n, steps), 2);
  TT_TRY_VOID(reserve(b, transfers, saturating_mul(4, transfers)));
  const PhaseContext ctx{b, sched::dtype_size(spec.dtype)};
  const sched::Slice whole{Bytes(0), spec.bytes};
  const auto ep = [](int r) { return sched::endpoint_of(RankId(r)); };
  // Rank r's transfers of the previous step (its sendrecv): sent, then received.
  std::vector<DepList> sent(static_cast<std::size_t>(n)), received(sent.size());
  for (int d = 1; d < n; d <<= 1) {
    const int c = blocks_at(d, n);
    std::vector<DepList> now_sent(sent.size()), now_received(sent.size());
    for (int r = 0; r < n; ++r) {
      const auto u = static_cast<std::size_t>(r);
      const int to = (r - d + n) % n;
      DepList deps = sent[u];
      deps.insert(deps.end(), received[u].begin(), received[u].end());
      // Blocks r .. r+c-1, mod n: one run, or two where they wrap past block n-1.
      const int end = r + c;
      const int first_end = end <= n ? end : n;
      const sched::Slice a = part(ctx, whole, r, n), z = part(ctx, whole, first_end - 1, n);
      std::vector<sched::Slice> runs{sched::Slice{a.offset, z.end() - a.offset}};
      if (end > n) {
        const sched::Slice w = part(ctx, whole, end - n - 1, n);
        runs.push_back(sched::Slice{Bytes(0), w.end()});
      }
      for (const sched::Slice& run : runs) {
        const TransferId t = b.add(ep(r), ep(to), run, false, deps, 0);
        now_sent[u].push_back(t);
        now_received[static_cast<std::size_t>(to)].push_back(t);
      }
    }
    sent = std::move(now_sent);
    received = std::move(now_received);
  }
  return std::move(b).build();
}

Expected<Seconds> BruckAllgather::closed_form(const sched::CollectiveSpec& spec,
                                              const RankLayout& layout,
                                              const CostParams& params) const {
  TT_TRY_VOID(supports(spec, layout));
  const int n = spec.ranks;
  const double block = spec.bytes.as_double() / n;
  const HopCost inter = layout.gpus_per_host > 1 ? params.inter_all_gpus() : params.inter;
  double t = 0.0;
  for (int d = 1; d < n; d <<= 1) {
    std::vector<HopCost> hops;
    for (int r = 0; r < n; ++r) {
      const bool same = layout.host_of(RankId(r)) == layout.host_of(RankId((r - d + n) % n));
      hops.push_back(same ? params.intra : inter);
    }
    const double bytes = blocks_at(d, n) * block;
    t += slowest_hop(hops, bytes).time(bytes).value;
  }
  return Seconds(t);
}

}  // namespace topotune::algo
