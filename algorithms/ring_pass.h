#pragma once
// RingPass: one channel of a ring over a group of endpoints, the building block of the ring
// allreduce, reduce-scatter, allgather and of the hierarchical algorithm's intra-host phases.
//
// With n positions (order[0..n-1], position i sends to i+1 mod n) and n regions, region p ends
// reduced at position p after the reduce-scatter half and starts at position p for the
// allgather half:
//   reduce-scatter step s (0..n-2): position i reduces region (i-s-1) mod n into position i+1;
//   allgather step s (0..n-2):      position i copies region (i-s) mod n to position i+1.
// Each region is cut into `chunks` element-aligned chunks; chunk k runs all its steps before
// chunk k+1 (NCCL's loop order). Dependencies: a send waits for the data it forwards (the
// previous step's receive) and for the same position's previous send on this channel, so one
// channel never has two transfers on the same link at once (FIFO per link).
//
// Reduced (`period` > 0, sched::ReducedSchedule): when the ring is invariant under a shift of
// its positions by `period` (position i + period is the twin of position i, and the region
// sizes repeat with that period), only positions 0..period-1 send; a send's dependencies are
// the representatives of the full ones (position i - 1 of the previous step is position
// (i - 1) mod period), and the exit lists are those positions'. The caller checks the
// invariance (ring_pass_is_periodic).

#include <span>

#include "algorithms/phase_context.h"

namespace topotune::algo {

struct RingPass {
  std::span<const EndpointId> order;      ///< ring positions
  std::span<const sched::Slice> regions;  ///< regions[p], see the file comment
  bool reduce_scatter = true;
  bool allgather = true;
  int chunks = 1;
  int channel = 0;
  int period = 0;  ///< > 0: write the positions 0..period-1 only (reduced); 0: all
};

/// Adds the pass's transfers: chunks * steps * n, steps = (n-1) per enabled half.
void add_ring_pass(const PhaseContext& ctx, const RingPass& pass);

/// Transfers add_ring_pass adds (for ScheduleBuilder::reserve): chunks * steps * positions
/// written (n, or the period when reduced).
std::size_t ring_pass_transfers(int n, const RingPass& pass);

/// Whether `order` repeats under a shift of the ranks by `shift_ranks` with period `period`
/// positions: positions 0..period-1 hold ranks below `shift_ranks` and position i + period
/// holds position i's rank + shift_ranks. Then position i + period is position i's twin.
bool order_repeats(std::span<const EndpointId> order, int period, int shift_ranks);

/// Whether the pass's chunk sizes repeat with period `period` over the regions (region p and
/// p + period have equal chunks), as a reduced pass needs; `period` must divide the regions.
bool ring_pass_is_periodic(const PhaseContext& ctx, const RingPass& pass, int period);

}  // namespace topotune::algo
