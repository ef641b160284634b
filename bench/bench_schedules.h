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
//   Each inter-host step waits for the previous step's receive and send (MPI_Sendrecv
//   semantics), which the symbolic interpreter needs to prove it race-free
//   (tests/simulator/bench_schedules_test.cc).
//   Transfers: H G 2(G-1) + G H 2 log2(H)  (278,528 at 1024 hosts x 8).

#include <bit>
#include <vector>

#include "algorithms/schedule/schedule.h"

namespace topotune::bench {

/// Adds a transfer waiting for the valid ones of `a` and `b` (invalid = no dependency).
inline TransferId add_after(sched::ScheduleBuilder& b, EndpointId src, EndpointId dst,
                            sched::Slice slice, bool reduce, TransferId d1, TransferId d2) {
  TransferId deps[2];
  std::size_t n = 0;
  for (TransferId d : {d1, d2}) {
    if (d.valid()) deps[n++] = d;
  }
  return b.add(src, dst, slice, reduce, std::span<const TransferId>(deps, n));
}

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

/// Rabenseifner allreduce of `chunk` among one rank per host (power-of-two `hosts`): halves
/// exchanged along hypercube dimensions, largest distance first (reduce), then back (copy).
/// `rank(h)` is the rank on host h. In: `got[h]`, what its data waits for. Out: `got[h]` and
/// `sent[h]`, its last receive and last send (a step waits for both of the previous step, as an
/// MPI_Sendrecv does: the receive brings data, the send read data later steps overwrite).
template <class RankOf>
void add_rabenseifner(sched::ScheduleBuilder& b, int hosts, sched::Slice chunk, RankOf rank,
                      std::vector<TransferId>& got, std::vector<TransferId>& sent) {
  const int levels = std::countr_zero(static_cast<unsigned>(hosts));
  const int elem = sched::dtype_size(b.spec().dtype);
  const auto H = static_cast<std::size_t>(hosts);
  std::vector<std::int64_t> lo(H, 0), hi(H, chunk.size.value / elem);
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> kept(H);
  std::vector<TransferId> next(H);
  sent.assign(H, TransferId());
  const auto slice = [&](std::int64_t a, std::int64_t z) {
    return sched::Slice{chunk.offset + Bytes(a * elem), Bytes((z - a) * elem)};
  };
  for (int k = 0; k < 2 * levels; ++k) {
    const bool halving = k < levels;
    const int d = halving ? hosts >> (k + 1) : hosts >> (2 * levels - k);
    for (std::size_t h = 0; h < H; ++h) {
      const std::int64_t mid = lo[h] + (hi[h] - lo[h]) / 2;
      const bool keep_low = (static_cast<int>(h) & d) == 0;
      const sched::Slice send = !halving   ? slice(lo[h], hi[h])
                                : keep_low ? slice(mid, hi[h])
                                           : slice(lo[h], mid);
      const auto p = static_cast<std::size_t>(static_cast<int>(h) ^ d);
      next[p] = add_after(b, rank(static_cast<int>(h)), rank(static_cast<int>(p)), send, halving,
                          got[h], sent[h]);
      sent[h] = next[p];
    }
    for (std::size_t h = 0; h < H; ++h) {
      if (halving) {
        kept[h].emplace_back(lo[h], hi[h]);
        const std::int64_t mid = lo[h] + (hi[h] - lo[h]) / 2;
        ((static_cast<int>(h) & d) == 0 ? hi[h] : lo[h]) = mid;
      } else {
        std::tie(lo[h], hi[h]) = kept[h].back();
        kept[h].pop_back();
      }
    }
    got = next;
  }
}

/// See the file comment. `intra` is the GPUs' ring order inside a host (local indices);
/// rank = host * G + local.
inline sched::Schedule hierarchical_allreduce(int hosts, const std::vector<int>& intra,
                                              Bytes bytes) {
  const int g = static_cast<int>(intra.size());
  const auto G = static_cast<std::size_t>(g), H = static_cast<std::size_t>(hosts);
  TT_ASSERT(std::has_single_bit(static_cast<unsigned>(hosts)), "hosts must be a power of two");
  sched::CollectiveSpec spec;
  spec.ranks = hosts * g;
  spec.bytes = bytes;
  sched::ScheduleBuilder b(spec, "bench-hierarchical(intra=ring,inter=rabenseifner)");
  const auto rank = [&](int h, int pos) {
    return EndpointId(h * g + intra[static_cast<std::size_t>(pos)]);
  };
  // got[h*G + pos]: the last transfer received by ring position pos of host h; sent: its last
  // inter-host send, which the first allgather step also waits for.
  std::vector<TransferId> got(H * G), next(got.size()), sent(got.size());
  const auto intra_steps = [&](int first, int last) {
    for (int s = first; s <= last; ++s) {
      for (std::size_t h = 0; h < H; ++h) {
        for (int i = 0; i < g; ++i) {
          const int to = (i + 1) % g;
          const std::size_t at = h * G + static_cast<std::size_t>(i);
          next[h * G + static_cast<std::size_t>(to)] =
              add_after(b, rank(static_cast<int>(h), i), rank(static_cast<int>(h), to),
                        sched::block(spec, ((i - s) % g + g) % g, g), s < g - 1, got[at],
                        s == g - 1 ? sent[at] : TransferId());
        }
      }
      std::swap(got, next);
    }
  };
  intra_steps(0, g - 2);
  // Position i owns chunk (i+1) mod G, summed over its host: allreduce it across hosts.
  for (int i = 0; i < g; ++i) {
    std::vector<TransferId> rail(H), rail_sent;
    for (std::size_t h = 0; h < H; ++h) rail[h] = got[h * G + static_cast<std::size_t>(i)];
    add_rabenseifner(
        b, hosts, sched::block(spec, (i + 1) % g, g), [&](int h) { return rank(h, i); }, rail,
        rail_sent);
    for (std::size_t h = 0; h < H; ++h) {
      got[h * G + static_cast<std::size_t>(i)] = rail[h];
      sent[h * G + static_cast<std::size_t>(i)] = rail_sent[h];
    }
  }
  intra_steps(g - 1, 2 * g - 3);
  return std::move(b).build().value();
}

}  // namespace topotune::bench
