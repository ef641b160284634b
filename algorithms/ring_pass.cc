#include "algorithms/ring_pass.h"

#include <vector>

namespace topotune::algo {

std::size_t ring_pass_transfers(int n, const RingPass& pass) {
  const int steps = (pass.reduce_scatter ? n - 1 : 0) + (pass.allgather ? n - 1 : 0);
  return static_cast<std::size_t>(pass.chunks) * static_cast<std::size_t>(steps) *
         static_cast<std::size_t>(n);
}

void add_ring_pass(const PhaseContext& ctx, const RingPass& pass) {
  const int n = static_cast<int>(pass.order.size());
  if (n == 1) {
    ctx.pass_through(pass.order[0]);
    return;
  }
  const int rs_steps = pass.reduce_scatter ? n - 1 : 0;
  const int steps = rs_steps + (pass.allgather ? n - 1 : 0);
  // tail[i]: position i's last send (FIFO); recv[i]: what position i received last step.
  std::vector<TransferId> tail(static_cast<std::size_t>(n)), recv(tail), next(tail);
  DepList deps;
  deps.reserve(8);
  for (int k = 0; k < pass.chunks; ++k) {
    for (int s = 0; s < steps; ++s) {
      const bool reduce = s < rs_steps;
      // The first step of a chunk sends the sender's own data: no data dependency.
      const bool needs_data = s > 0;
      for (int i = 0; i < n; ++i) {
        const int to = i + 1 == n ? 0 : i + 1;
        const int shift = reduce ? s + 1 : s - rs_steps;
        const int region = ((i - shift) % n + n) % n;
        const sched::Slice& whole = pass.regions[static_cast<std::size_t>(region)];
        const sched::Slice slice = pass.chunks == 1 ? whole : part(ctx, whole, k, pass.chunks);
        deps.clear();
        if (tail[static_cast<std::size_t>(i)].valid()) deps.push_back(tail[static_cast<std::size_t>(i)]);
        if (needs_data) deps.push_back(recv[static_cast<std::size_t>(i)]);
        if (k == 0 && s == 0) {
          ctx.add_entry(deps, pass.order[static_cast<std::size_t>(i)]);
          ctx.add_entry(deps, pass.order[static_cast<std::size_t>(to)]);
        }
        const TransferId t = ctx.builder.add(pass.order[static_cast<std::size_t>(i)],
                                             pass.order[static_cast<std::size_t>(to)], slice,
                                             reduce, deps, pass.channel);
        tail[static_cast<std::size_t>(i)] = t;
        next[static_cast<std::size_t>(to)] = t;
      }
      recv.swap(next);
    }
  }
  // Last send and last receive of each position: every transfer touching it precedes one.
  for (int i = 0; i < n; ++i) {
    const EndpointId e = pass.order[static_cast<std::size_t>(i)];
    ctx.add_exit(e, tail[static_cast<std::size_t>(i)]);
    ctx.add_exit(e, tail[static_cast<std::size_t>((i + n - 1) % n)]);
  }
}

}  // namespace topotune::algo

#include "algorithms/rank_layout.h"

namespace topotune::algo {

void add_owned_ring_half(const PhaseContext& ctx, const RankLayout& layout, int channels,
                         int chunks, bool reduce) {
  const int n = layout.ranks();
  const std::size_t transfers = static_cast<std::size_t>(channels) *
                                static_cast<std::size_t>(chunks) *
                                static_cast<std::size_t>(n - 1) * static_cast<std::size_t>(n);
  ctx.builder.reserve(transfers, 2 * transfers);
  const sched::Slice whole{Bytes(0), ctx.builder.spec().bytes};
  for (int c = 0; c < channels; ++c) {
    std::vector<EndpointId> order;
    for (RankId r : layout.ring(c)) order.push_back(sched::endpoint_of(r));
    std::vector<sched::Slice> regions(static_cast<std::size_t>(n));
    for (int p = 0; p < n; ++p) {
      const int owner = order[static_cast<std::size_t>(p)].value;
      regions[static_cast<std::size_t>(p)] = part(ctx, part(ctx, whole, owner, n), c, channels);
    }
    add_ring_pass(ctx, RingPass{order, regions, reduce, !reduce, chunks, c});
  }
}

}  // namespace topotune::algo
