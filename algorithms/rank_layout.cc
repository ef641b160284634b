#include "algorithms/rank_layout.h"

#include <string>

#include "algorithms/schedule/collective_spec.h"

namespace topotune::algo {

Expected<void> RankLayout::check() const {
  if (hosts < 1 || gpus_per_host < 1) {
    return fail(Errc::InvalidArgument, "a layout needs at least one host and one GPU per host");
  }
  if (rings.empty() || intra.empty())
    return fail(Errc::InvalidArgument, "layout has no ring order");
  for (const auto& ring : rings) {
    std::vector<char> seen(static_cast<std::size_t>(ranks()), 0);
    if (static_cast<int>(ring.size()) != ranks()) {
      return fail(Errc::InvalidArgument, "ring order has " + std::to_string(ring.size()) +
                                             " ranks, expected " + std::to_string(ranks()));
    }
    for (RankId r : ring) {
      if (r.value < 0 || r.value >= ranks() || seen[r.index()]) {
        return fail(Errc::InvalidArgument, "ring order is not a permutation of the ranks");
      }
      seen[r.index()] = 1;
    }
  }
  for (const auto& order : intra) {
    std::vector<char> seen(static_cast<std::size_t>(gpus_per_host), 0);
    if (static_cast<int>(order.size()) != gpus_per_host) {
      return fail(Errc::InvalidArgument, "intra-host ring has the wrong size");
    }
    for (int g : order) {
      if (g < 0 || g >= gpus_per_host || seen[static_cast<std::size_t>(g)]) {
        return fail(Errc::InvalidArgument, "intra-host ring is not a permutation of the GPUs");
      }
      seen[static_cast<std::size_t>(g)] = 1;
    }
  }
  return {};
}

Expected<RankLayout> flat_layout(int ranks, int gpus_per_host) {
  if (ranks < 1)
    return fail(Errc::InvalidArgument, "ranks must be at least 1, got " + std::to_string(ranks));
  // Checked before the per-rank arrays are built (2^31 ranks took 12 s and 30 GB to refuse).
  if (ranks > sched::kMaxRanks) {
    return fail(Errc::InvalidArgument, "ranks must be at most " + std::to_string(sched::kMaxRanks) +
                                           ", got " + std::to_string(ranks) + " (docs/limits.md)");
  }
  if (gpus_per_host < 1 || ranks % gpus_per_host != 0) {
    return fail(Errc::InvalidArgument, std::to_string(ranks) + " ranks do not fill hosts of " +
                                           std::to_string(gpus_per_host) + " GPUs");
  }
  RankLayout l;
  l.hosts = ranks / gpus_per_host;
  l.gpus_per_host = gpus_per_host;
  l.intra.emplace_back();
  for (int g = 0; g < gpus_per_host; ++g) l.intra[0].push_back(g);
  return in_rank_order(std::move(l));
}

RankLayout in_rank_order(RankLayout layout) {
  std::vector<RankId> order;
  for (int r = 0; r < layout.ranks(); ++r) order.push_back(RankId(r));
  layout.rings = {std::move(order)};
  return layout;
}

}  // namespace topotune::algo
