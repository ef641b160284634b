#include "algorithms/ring_pass.h"

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/schedule/transfer_writer.h"

namespace topotune::algo {

std::size_t ring_pass_transfers(int n, const RingPass& pass) {
  const int steps = (pass.reduce_scatter ? n - 1 : 0) + (pass.allgather ? n - 1 : 0);
  return static_cast<std::size_t>(pass.chunks) * static_cast<std::size_t>(steps) *
         static_cast<std::size_t>(n);
}

namespace {

// Transfers are written step by step, n per step in position order, so the transfer position i
// sent at global step t (over all chunks) has id base + t*n + i: a send's dependencies (the
// same position's previous send, FIFO; the data it forwards, received from position i-1 at the
// previous step) are arithmetic, with no per-position bookkeeping.
struct StepWriter {
  sched::TransferWriter& w;
  const RingPass& pass;
  std::span<const sched::Slice> slices;  // this chunk's part of each region
  int n;

  // One step: position i sends region (first_region + i) mod n to position i + 1.
  void step(int first_region, bool reduce, std::int32_t prev, bool needs_data) const {
    int region = first_region;
    for (int i = 0; i < n; ++i) {
      const int to = i + 1 == n ? 0 : i + 1;
      const EndpointId src = pass.order[static_cast<std::size_t>(i)];
      const EndpointId dst = pass.order[static_cast<std::size_t>(to)];
      const sched::Slice slice = slices[static_cast<std::size_t>(region)];
      const TransferId tail(prev + i);
      if (needs_data) {
        const TransferId data(prev + (i == 0 ? n - 1 : i - 1));
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
    for (int i = 0; i < n; ++i) {
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

// Dependencies the first step takes from the phase entry: each endpoint's list, twice (it is
// the source of one send and the destination of another).
std::size_t entry_deps(const PhaseContext& ctx, std::span<const EndpointId> order) {
  std::size_t total = 0;
  if (ctx.entry != nullptr) {
    for (EndpointId e : order) total += 2 * ctx.entry->get(e).size();
  }
  return total;
}

}  // namespace

void add_ring_pass(const PhaseContext& ctx, const RingPass& pass) {
  const int n = static_cast<int>(pass.order.size());
  if (n == 1) {
    ctx.pass_through(pass.order[0]);
    return;
  }
  const int rs_steps = pass.reduce_scatter ? n - 1 : 0;
  const int steps = rs_steps + (pass.allgather ? n - 1 : 0);
  const std::size_t transfers = ring_pass_transfers(n, pass);
  if (transfers == 0) return;
  sched::TransferWriter w =
      ctx.builder.write(transfers, 2 * transfers + entry_deps(ctx, pass.order));
  const std::int32_t base = w.next_id().value;
  std::vector<sched::Slice> slices(static_cast<std::size_t>(n));
  const StepWriter out{w, pass, slices, n};
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
        out.step(first_region, reduce, w.next_id().value - n, s > 0);
      }
    }
  }
  w.finish();
  // Last send and last receive of each position: every transfer touching it precedes one.
  const std::int32_t last = base + static_cast<std::int32_t>(transfers) - n;
  for (int i = 0; i < n; ++i) {
    const EndpointId e = pass.order[static_cast<std::size_t>(i)];
    ctx.add_exit(e, TransferId(last + i));
    ctx.add_exit(e, TransferId(last + (i + n - 1) % n));
  }
}

}  // namespace topotune::algo
