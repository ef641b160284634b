#pragma once
// Allreduce schedules for the simulator benchmark, written here (not taken from algorithms/)
// so the benchmark measures the simulator on fixed, documented schedules:
//
// ring_allreduce: one ring over all ranks in the given order (hosts contiguous), 2(n-1) steps
//   of S/n; n(2(n-1)) transfers.
// hierarchical_allreduce: NCCL-2D / Horovod-hierarchical shape on H hosts x G GPUs:
//   1. intra-host ring reduce-scatter (G-1 steps of S/G over NVLink); GPU at ring position i
//      then owns chunk (i+1) mod G, summed over its host;
//   2. inter-host allreduce of that chunk among the H GPUs of the same ring position (one per
//      host; they sit on the same rail), by recursive halving-doubling (Rabenseifner): log2(H)
//      halving steps (reduce) then log2(H) doubling steps (copy). H must be a power of two.
//      Why this inner algorithm: it is bandwidth-optimal like a ring (2(H-1)/H of the chunk per
//      GPU) but takes 2 log2(H) steps instead of 2(H-1), which is what one runs at 1024 hosts;
//   3. intra-host ring allgather (G-1 steps).
//   Transfers: H G 2(G-1) + G H 2 log2(H)  (278,528 at 1024 hosts x 8).

#include <bit>
#include <vector>

#include "algorithms/schedule/schedule.h"

namespace topotune::bench {

/// One ring allreduce over `order` (ranks in ring order) of the whole buffer.
inline sched::Schedule ring_allreduce(const std::vector<int>& order, Bytes bytes) {
  const int n = static_cast<int>(order.size());
  sched::CollectiveSpec spec;
  spec.ranks = n;
  spec.bytes = bytes;
  sched::ScheduleBuilder b(spec, "bench-ring");
  b.reserve(static_cast<std::size_t>(n) * 2 * static_cast<std::size_t>(n - 1),
            static_cast<std::size_t>(n) * 2 * static_cast<std::size_t>(n - 1));
  std::vector<TransferId> got(static_cast<std::size_t>(n)), next(static_cast<std::size_t>(n));
  for (int s = 0; s < 2 * (n - 1); ++s) {
    for (int i = 0; i < n; ++i) {
      const int to = (i + 1) % n;
      next[static_cast<std::size_t>(to)] = b.add(EndpointId(order[static_cast<std::size_t>(i)]),
                                                 EndpointId(order[static_cast<std::size_t>(to)]),
                                                 sched::block(spec, ((i - s) % n + n) % n, n),
                                                 s < n - 1, got[static_cast<std::size_t>(i)]);
    }
    std::swap(got, next);
  }
  return std::move(b).build().value();
}

/// See the file comment. `intra` is the GPUs' ring order inside a host (local indices);
/// rank = host * G + local.
inline sched::Schedule hierarchical_allreduce(int hosts, const std::vector<int>& intra,
                                              Bytes bytes) {
  const int g = static_cast<int>(intra.size());
  const auto G = static_cast<std::size_t>(g);
  TT_ASSERT(std::has_single_bit(static_cast<unsigned>(hosts)), "hosts must be a power of two");
  const int levels = std::countr_zero(static_cast<unsigned>(hosts));
  sched::CollectiveSpec spec;
  spec.ranks = hosts * g;
  spec.bytes = bytes;
  sched::ScheduleBuilder b(spec, "bench-hierarchical(intra=ring,inter=rabenseifner)");
  const int elem = sched::dtype_size(spec.dtype);
  const auto rank = [&](int h, int pos) {
    return EndpointId(h * g + intra[static_cast<std::size_t>(pos)]);
  };
  // got[h*G + pos]: the last transfer received by ring position pos of host h.
  std::vector<TransferId> got(static_cast<std::size_t>(hosts) * G), next(got.size());
  const auto intra_steps = [&](int first, int last) {
    for (int s = first; s <= last; ++s) {
      for (int h = 0; h < hosts; ++h) {
        for (int i = 0; i < g; ++i) {
          const int to = (i + 1) % g;
          const std::size_t from_slot =
              static_cast<std::size_t>(h) * G + static_cast<std::size_t>(i);
          next[static_cast<std::size_t>(h) * G + static_cast<std::size_t>(to)] =
              b.add(rank(h, i), rank(h, to), sched::block(spec, ((i - s) % g + g) % g, g),
                    s < g - 1, got[from_slot]);
        }
      }
      std::swap(got, next);
    }
  };
  intra_steps(0, g - 2);
  // Inter-host: position i owns chunk (i+1) mod G; hosts exchange halves of it along hypercube
  // dimensions, largest distance first, then back.
  for (int i = 0; i < g; ++i) {
    const sched::Slice chunk = sched::block(spec, (i + 1) % g, g);
    const std::int64_t elems = chunk.size.value / elem;
    std::vector<std::int64_t> lo(static_cast<std::size_t>(hosts), 0), hi(lo.size(), elems);
    std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> kept(lo.size());
    const auto slice = [&](std::int64_t a, std::int64_t z) {
      return sched::Slice{chunk.offset + Bytes(a * elem), Bytes((z - a) * elem)};
    };
    for (int k = 0; k < 2 * levels; ++k) {
      const bool halving = k < levels;
      const int d = halving ? hosts >> (k + 1) : hosts >> (2 * levels - k);
      for (int h = 0; h < hosts; ++h) {
        const int p = h ^ d;
        const std::size_t hs = static_cast<std::size_t>(h), ps = static_cast<std::size_t>(p);
        const std::size_t slot = hs * G + static_cast<std::size_t>(i);
        sched::Slice send;
        if (halving) {
          const std::int64_t mid = lo[hs] + (hi[hs] - lo[hs]) / 2;
          const bool keep_low = (h & d) == 0;
          send = keep_low ? slice(mid, hi[hs]) : slice(lo[hs], mid);
        } else {
          send = slice(lo[hs], hi[hs]);
        }
        next[ps * G + static_cast<std::size_t>(i)] =
            b.add(rank(h, i), rank(p, i), send, halving, got[slot]);
      }
      for (int h = 0; h < hosts; ++h) {
        const std::size_t hs = static_cast<std::size_t>(h);
        if (halving) {
          kept[hs].emplace_back(lo[hs], hi[hs]);
          const std::int64_t mid = lo[hs] + (hi[hs] - lo[hs]) / 2;
          if ((h & d) == 0)
            hi[hs] = mid;
          else
            lo[hs] = mid;
        } else {
          std::tie(lo[hs], hi[hs]) = kept[hs].back();
          kept[hs].pop_back();
        }
        got[hs * G + static_cast<std::size_t>(i)] = next[hs * G + static_cast<std::size_t>(i)];
      }
    }
  }
  intra_steps(g - 1, 2 * g - 3);
  return std::move(b).build().value();
}

}  // namespace topotune::bench
