#pragma once
// EventQueue: the simulator's pending events, earliest first, ties in creation order.
//
// A binary min-heap on (time, sequence number) through std::push_heap/pop_heap, whose pop sifts
// the hole down to a leaf with one comparison per level (Floyd) and then sifts the last element
// up: measured (callgrind) to execute about half the instructions of a hand-written 4-ary heap
// with the usual two-comparisons-per-level sift-down. Times are non-negative, so their IEEE bit
// patterns order like the numbers: (time, seq) compares as two unsigned integers, with no NaN
// branches. Events are 24 bytes.

#include <algorithm>
#include <bit>
#include <cstdint>
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
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }

  /// Adds an event and returns its sequence number.
  std::uint64_t push(double time, std::uint32_t id, std::uint8_t kind) {
    TT_ASSERT(time >= 0, "event time %g must be >= 0", time);
    heap_.push_back(Event{time + 0.0, next_seq_, id, kind});  // + 0.0 turns -0.0 into +0.0
    std::push_heap(heap_.begin(), heap_.end(), Later{});
    return next_seq_++;
  }

  /// Removes and returns the earliest event.
  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const Event e = heap_.back();
    heap_.pop_back();
    return e;
  }

 private:
  // "a comes after b": std heaps keep the greatest on top, so this makes a min-heap.
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      const auto ta = std::bit_cast<std::uint64_t>(a.time);
      const auto tb = std::bit_cast<std::uint64_t>(b.time);
      return ta > tb || (ta == tb && a.seq > b.seq);
    }
  };

  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace topotune::sim
