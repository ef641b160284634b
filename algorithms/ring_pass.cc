#include "algorithms/ring_pass.h"

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/schedule/transfer_writer.h"
#include "core/assert.h"

namespace topotune::algo {

std::size_t ring_pass_transfers(int n, const RingPass& pass) {
  const int steps = (pass.reduce_scatter ? n - 1 : 0) + (pass.allgather ? n - 1 : 0);
  const int written = pass.period > 0 ? pass.period : n;
  return static_cast<std::size_t>(pass.chunks) * static_cast<std::size_t>(steps) *
         static_cast<std::size_t>(written);
}

bool order_repeats(std::span<const EndpointId> order, int period, int shift_ranks) {
  const auto n = order.size();
  const auto p = static_cast<std::size_t>(period);
  if (period <= 0 || shift_ranks <= 0 || n % p != 0) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const bool ok = i < p ? order[i].value >= 0 && order[i].value < shift_ranks
                          : order[i].value == order[i - p].value + shift_ranks;
    if (!ok) return false;
  }
  return true;
}

bool ring_pass_is_periodic(const PhaseContext& ctx, const RingPass& pass, int period) {
  const int n = static_cast<int>(pass.regions.size());
  if (period <= 0 || n % period != 0) return false;
  for (int k = 0; k < pass.chunks; ++k) {
    const auto chunk = [&](int region) {
      const sched::Slice& whole = pass.regions[static_cast<std::size_t>(region)];
      return pass.chunks == 1 ? whole.size : part(ctx, whole, k, pass.chunks).size;
    };
    for (int p = period; p < n; ++p) {
      if (chunk(p) != chunk(p % period)) return false;
    }
  }
  return true;
}

namespace {

// Transfers are written step by step, m per step in position order (m = n, or the period when
// reduced), so the transfer position i sent at global step t (over all chunks) has id
// base + t*m + i: a send's dependencies (the same position's previous send, FIFO; the data it
// forwards, received from position i-1 at the previous step, whose representative is position
// (i-1) mod m) are arithmetic, with no per-position bookkeeping.
struct StepWriter {
  sched::TransferWriter& w;
  const RingPass& pass;
  std::span<const sched::Slice> slices;  // this chunk's part of each region
  int n;
  int m;  // positions written per step

  // One step: position i sends region (first_region + i) mod n to position i + 1.
  void step(int first_region, bool reduce, std::int32_t prev, bool needs_data) const {
    int region = first_region;
    for (int i = 0; i < m; ++i) {
      const int to = i + 1 == n ? 0 : i + 1;
      const EndpointId src = pass.order[static_cast<std::size_t>(i)];
      const EndpointId dst = pass.order[static_cast<std::size_t>(to)];
      const sched::Slice slice = slices[static_cast<std::size_t>(region)];
      const TransferId tail(prev + i);
      if (needs_data) {
        const TransferId data(prev + (i == 0 ? m - 1 : i - 1));
        w.add(src, dst, slice, reduce, {tail, data}, pass.channel);
      } else {
        w.add(src, dst, slice, reduce, {tail}, pass.channel);
      }
      region = region + 1 == n ? 0 : region + 1;
    }
  }

  // The pass's first step: each send waits only for what the phase's entry lists for its two
  // endpoints (nothing was sent or received in this pass before).
  void first_step(const PhaseContext& ctx, int first_region, bool reduce) const {
    DepList deps;
    int region = first_region;
    for (int i = 0; i < m; ++i) {
      const int to = i + 1 == n ? 0 : i + 1;
      deps.clear();
      ctx.add_entry(deps, pass.order[static_cast<std::size_t>(i)]);
      ctx.add_entry(deps, pass.order[static_cast<std::size_t>(to)]);
      w.add(pass.order[static_cast<std::size_t>(i)], pass.order[static_cast<std::size_t>(to)],
            slices[static_cast<std::size_t>(region)], reduce, deps, pass.channel);
      region = region + 1 == n ? 0 : region + 1;
    }
  }
};

// Dependencies the first step takes from the phase entry: the lists of the sender and of the
// receiver of each of the m sends.
std::size_t entry_deps(const PhaseContext& ctx, std::span<const EndpointId> order, int m) {
  std::size_t total = 0;
  if (ctx.entry == nullptr) return total;
  const auto n = order.size();
  for (std::size_t i = 0; i < static_cast<std::size_t>(m); ++i) {
    total += ctx.entry->get(ctx.representative(order[i])).size() +
             ctx.entry->get(ctx.representative(order[(i + 1) % n])).size();
  }
  return total;
}

}  // namespace

void add_ring_pass(const PhaseContext& ctx, const RingPass& pass) {
  const int n = static_cast<int>(pass.order.size());
  const int m = pass.period > 0 ? pass.period : n;
  TT_ASSERT(n % m == 0, "a ring of %d positions reduced by a period of %d", n, m);
  if (n == 1) {
    ctx.pass_through(pass.order[0]);
    return;
  }
  const int rs_steps = pass.reduce_scatter ? n - 1 : 0;
  const int steps = rs_steps + (pass.allgather ? n - 1 : 0);
  const std::size_t transfers = ring_pass_transfers(n, pass);
  if (transfers == 0) return;
  sched::TransferWriter w =
      ctx.builder.write(transfers, 2 * transfers + entry_deps(ctx, pass.order, m));
  const std::int32_t base = w.next_id().value;
  std::vector<sched::Slice> slices(static_cast<std::size_t>(n));
  const StepWriter out{w, pass, slices, n, m};
  for (int k = 0; k < pass.chunks; ++k) {
    for (int p = 0; p < n; ++p) {
      const sched::Slice& whole = pass.regions[static_cast<std::size_t>(p)];
      slices[static_cast<std::size_t>(p)] =
          pass.chunks == 1 ? whole : part(ctx, whole, k, pass.chunks);
    }
    for (int s = 0; s < steps; ++s) {
      const bool reduce = s < rs_steps;
      // Reduce-scatter step s moves region (i-s-1) mod n from position i; allgather (i-s').
      const int shift = reduce ? s + 1 : s - rs_steps;
      const int first_region = ((-shift) % n + n) % n;
      if (k == 0 && s == 0) {
        out.first_step(ctx, first_region, reduce);
      } else {
        out.step(first_region, reduce, w.next_id().value - m, s > 0);
      }
    }
  }
  w.finish();
  // Last send and last receive of each position: every transfer touching it precedes one.
  const std::int32_t last = base + static_cast<std::int32_t>(transfers) - m;
  for (int i = 0; i < m; ++i) {
    const EndpointId e = pass.order[static_cast<std::size_t>(i)];
    ctx.add_exit(e, TransferId(last + i));
    ctx.add_exit(e, TransferId(last + (i + m - 1) % m));
  }
}

}  // namespace topotune::algo
