#pragma once
// EventQueue: the simulator's pending events, earliest first, ties in creation order.
//
// Collective schedules run in lock step: at 1024 hosts, 8192 flows end at the same instant and
// 8192 starts follow at the same later instant. So events are grouped by exact time: a bucket
// per distinct pending time holds its events in creation order, and a binary min-heap orders
// only the buckets. A push is a hash lookup plus an append (a heap push only for a new time); a
// pop reads the next event of the earliest bucket. With all times distinct this degrades to one
// heap entry per event. Events pushed for the instant being drained join its bucket at the end,
// i.e. in sequence order. The hash map is only looked up, never iterated (determinism).
// Times are non-negative, so their IEEE bit patterns order like the numbers.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/assert.h"

namespace topotune::sim {

/// One pending event: at `time` (seconds, >= 0), `id` of kind `kind` (the caller's meanings).
struct Event {
  double time = 0;
  std::uint64_t seq = 0;  ///< creation order; unique; also identifies the event
  std::uint32_t id = 0;
  std::uint8_t kind = 0;
};

class EventQueue {
 public:
  bool empty() const { return heap_.empty(); }
  /// Time of the earliest pending event (the queue must not be empty).
  double top_time() const { return buckets_[heap_.front().bucket].time; }

  /// Adds an event and returns its sequence number.
  std::uint64_t push(double time, std::uint32_t id, std::uint8_t kind) {
    TT_ASSERT(time >= 0, "event time %g must be >= 0", time);
    time += 0.0;  // turns -0.0 into +0.0, so that equal times have equal bit patterns
    const auto key = std::bit_cast<std::uint64_t>(time);
    // Lock-step phases push runs of events at one time: the last bucket saves the hash lookup.
    if (key != last_key_ || last_bucket_ == kNoBucket) {
      auto [it, added] = index_.try_emplace(key, 0);
      if (added) {
        it->second = new_bucket(time);
        heap_.push_back(HeapEntry{key, it->second});
        std::push_heap(heap_.begin(), heap_.end(), Later{});
      }
      last_key_ = key;
      last_bucket_ = it->second;
    }
    buckets_[last_bucket_].events.push_back(Event{time, next_seq_, id, kind});
    return next_seq_++;
  }

  /// Removes and returns the earliest event.
  Event pop() {
    const HeapEntry top = heap_.front();
    Bucket& b = buckets_[top.bucket];
    const Event e = b.events[b.next++];
    if (b.next == b.events.size()) {
      std::pop_heap(heap_.begin(), heap_.end(), Later{});
      heap_.pop_back();
      index_.erase(top.key);
      if (last_bucket_ == top.bucket) last_bucket_ = kNoBucket;
      b.events.clear();  // keeps its capacity for reuse
      b.next = 0;
      free_.push_back(top.bucket);
    }
    return e;
  }

 private:
  struct Bucket {
    double time = 0;
    std::vector<Event> events;
    std::size_t next = 0;  ///< events before it have been popped
  };
  struct HeapEntry {
    std::uint64_t key;  ///< the time's bit pattern
    std::uint32_t bucket;
  };
  // "a comes after b": std heaps keep the greatest on top, so this makes a min-heap.
  struct Later {
    bool operator()(const HeapEntry& a, const HeapEntry& b) const { return a.key > b.key; }
  };

  std::uint32_t new_bucket(double time) {
    std::uint32_t b;
    if (free_.empty()) {
      b = static_cast<std::uint32_t>(buckets_.size());
      buckets_.emplace_back();
    } else {
      b = free_.back();
      free_.pop_back();
    }
    buckets_[b].time = time;
    return b;
  }

  std::vector<HeapEntry> heap_;
  std::vector<Bucket> buckets_;
  std::vector<std::uint32_t> free_;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
  static constexpr std::uint32_t kNoBucket = ~std::uint32_t{0};
  std::uint64_t last_key_ = 0;             ///< the time of the last push
  std::uint32_t last_bucket_ = kNoBucket;  ///< its bucket, while it is pending
  std::uint64_t next_seq_ = 0;
};

}  // namespace topotune::sim
