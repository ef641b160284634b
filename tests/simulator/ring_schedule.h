#pragma once
// Hand-written ring allreduce schedules for the simulator tests (the simulator must run any
// schedule, so its tests do not use the algorithm generators). The ring of
// algorithms/ring_allreduce.h with one channel and one chunk: n-1 reduce-scatter steps then
// n-1 allgather steps; at step s, ring position i sends chunk (i - s) mod n to position i+1,
// after receiving its previous chunk.

#include <optional>
#include <vector>

#include "algorithms/schedule/schedule.h"

namespace topotune::sim::testing {

/// Adds one ring allreduce of `part` over the ranks in `ring` (in ring order) on `channel`.
inline void add_ring_allreduce(sched::ScheduleBuilder& b, const std::vector<int>& ring,
                               sched::Slice part, int channel = 0) {
  const int n = static_cast<int>(ring.size());
  const int elem = sched::dtype_size(b.spec().dtype);
  std::vector<TransferId> got(static_cast<std::size_t>(n));  // invalid: no dependency yet
  for (int s = 0; s < 2 * (n - 1); ++s) {
    std::vector<TransferId> next(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const int to = (i + 1) % n;
      const int chunk = ((i - s) % n + n) % n;
      next[static_cast<std::size_t>(to)] =
          b.add(EndpointId(ring[static_cast<std::size_t>(i)]),
                EndpointId(ring[static_cast<std::size_t>(to)]), sched::block(part, elem, chunk, n),
                /*reduce=*/s < n - 1, got[static_cast<std::size_t>(i)], channel);
    }
    got = std::move(next);
  }
}

/// A whole-buffer ring allreduce over ranks in `ring` order.
inline sched::Schedule ring_allreduce(int ranks, Bytes bytes, const std::vector<int>& ring) {
  sched::CollectiveSpec spec;
  spec.ranks = ranks;
  spec.bytes = bytes;
  sched::ScheduleBuilder b(spec, "test-ring");
  add_ring_allreduce(b, ring, sched::Slice{Bytes(0), bytes});
  return std::move(b).build().value();
}

/// Identity order 0..n-1.
inline std::vector<int> iota_ring(int n) {
  std::vector<int> r;
  for (int i = 0; i < n; ++i) r.push_back(i);
  return r;
}

}  // namespace topotune::sim::testing
