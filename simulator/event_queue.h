#pragma once
// EventQueue: the simulator's pending events, earliest first, ties in creation order.
//
// The event loop only ever schedules events at or after the instant it is processing, so the
// queue is monotone and a radix heap fits it (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster
// algorithms for the shortest path problem", 1990): times are non-negative, so their IEEE bit
// patterns order like the numbers, and an event goes to bucket 1 + (the highest bit in which
// its key differs from the current instant's), bucket 0 holding the current instant's events.
// A push is a bit scan and an append; when the current instant is done, the lowest non-empty
// bucket is scanned for its smallest key, which becomes the new instant, and its events move
// to lower buckets (each event moves at most 64 times, in practice a few). Events with equal
// keys always share a bucket and moves keep their order, so ties leave in creation order.
//
// Why not a heap: schedules that are not in lock step (a ring whose rack crossings cost an
// extra hop drifts apart) have few events per distinct time (8 on average for
// hierarchical(ring) over 1,024 p4d hosts: 5.3 M events at 628 k instants), and a heap of
// per-time buckets with a hash index then paid a node allocation, a hash insert and erase and
// two heap operations per instant.
//
// Protocol: advance() moves to the next instant and returns its time; pop_current() then
// returns that instant's events, including those pushed for it while they are processed; a
// push must not be earlier than the current instant.

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "core/assert.h"

namespace topotune::sim {

/// One pending event: `id` and `tag` are the caller's meanings (its time is the instant at
/// which pop_current() returns it).
struct Event {
  std::uint64_t seq = 0;  ///< creation order; unique; also identifies the event
  std::uint32_t id = 0;
  std::uint32_t tag = 0;
};

class EventQueue {
 public:
  bool empty() const { return size_ == 0; }

  /// Adds an event at `time` (seconds, >= the current instant) and returns its sequence number.
  std::uint64_t push(double time, std::uint32_t id, std::uint32_t tag) {
    time += 0.0;  // turns -0.0 into +0.0, so that equal times have equal bit patterns
    const auto key = std::bit_cast<std::uint64_t>(time);
    TT_ASSERT(time >= 0 && key >= current_, "event time %g is before the current instant %g", time,
              std::bit_cast<double>(current_));
    buckets_[bucket_of(key)].push_back(Entry{key, Event{next_seq_, id, tag}});
    ++size_;
    return next_seq_++;
  }

  /// Moves to the earliest pending time, which becomes the current instant, and returns it
  /// (the queue must not be empty). If events remain at the current instant, it stays.
  double advance() {
    TT_ASSERT(size_ > 0, "advance() on an empty event queue");
    if (head_ == buckets_[0].size()) {
      buckets_[0].clear();
      head_ = 0;
      std::size_t b = 1;
      while (buckets_[b].empty()) ++b;
      std::vector<Entry>& from = buckets_[b];
      std::uint64_t least = from.front().key;
      for (const Entry& e : from) least = e.key < least ? e.key : least;
      current_ = least;
      for (const Entry& e : from) buckets_[bucket_of(e.key)].push_back(e);
      from.clear();  // keeps its capacity for reuse
    }
    return std::bit_cast<double>(current_);
  }

  /// The next event of the current instant, in creation order; false when there is none.
  bool pop_current(Event& out) {
    std::vector<Entry>& now = buckets_[0];
    if (head_ == now.size()) return false;
    out = now[head_++].event;
    --size_;
    return true;
  }

 private:
  struct Entry {
    std::uint64_t key;  ///< the time's bit pattern
    Event event;
  };

  /// 0 for the current instant, else 1 + the highest bit where `key` differs from it.
  std::size_t bucket_of(std::uint64_t key) const {
    return static_cast<std::size_t>(std::bit_width(key ^ current_));
  }

  std::array<std::vector<Entry>, 65> buckets_;
  std::size_t head_ = 0;       ///< bucket 0's events before it have been popped
  std::size_t size_ = 0;       ///< pending events
  std::uint64_t current_ = 0;  ///< the current instant's bit pattern (time 0 at first)
  std::uint64_t next_seq_ = 0;
};

}  // namespace topotune::sim
