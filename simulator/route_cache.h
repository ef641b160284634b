#pragma once
// RouteCache: the routes a simulation has already asked the network for (internal to
// simulator/).
//
// The event loop needs a transfer's route for its latency when it becomes ready and for its
// links and per-flow cap when it starts, and composing a route through a topology costs a
// hundred nanoseconds or so; mapping it onto link orbits in a reduced run costs as much again.
// Yet a ring or a hierarchical schedule has few distinct (source, destination, channel)
// triples: 16.8 M representatives of hierarchical(ring) on 8,192 x p5 use about two thousand.
// So each distinct triple is routed once and kept as a compact entry (latency, flow cap, its
// links in one shared array), found through a small open-addressing table. The engine looks
// every transfer up once before the run and keeps the index (4 bytes a transfer), which also
// gives it every route the run will use (for LinkClasses). Past `kMaxEntries` distinct triples
// (schedules where every pair talks) new ones are not kept (kNotCached): the caller routes them
// itself, so memory stays bounded. Routes are deterministic, so a kept one is exactly the one
// the network would return.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "simulator/network_model.h"

namespace topotune::sim {

class RouteCache {
 public:
  /// A kept route: what the engine needs of network.route() and network.flow_cap().
  struct Entry {
    double latency = 0;  ///< seconds, the sum of the links' latencies
    double cap = std::numeric_limits<double>::infinity();  ///< per-flow cap, bytes/s (or none)
    std::uint32_t first = 0;  ///< its links: links_[first, first + size)
    std::uint32_t size = 0;
  };
  /// find()'s answer for a triple that is not kept.
  static constexpr std::uint32_t kNotCached = ~std::uint32_t{0};

  explicit RouteCache(const NetworkModel& network) : network_(network) {
    slots_.assign(kInitialSlots, kEmpty);
  }

  /// The index of the entry for network.route(from, to, channel), routing it the first time;
  /// kNotCached when the ids do not fit the key or the table is full.
  std::uint32_t find(NodeId from, NodeId to, int channel) {
    // Device ids of up to 24 bits and channels of 16 (the schedule's limit is 15) pack into
    // one key; anything else is not kept.
    if (from.value < 0 || to.value < 0 || from.value >= (1 << 24) || to.value >= (1 << 24) ||
        channel < 0 || channel >= (1 << 16)) {
      return kNotCached;
    }
    const std::uint64_t key = (static_cast<std::uint64_t>(from.value) << 40) |
                              (static_cast<std::uint64_t>(to.value) << 16) |
                              static_cast<std::uint64_t>(channel);
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash(key) & mask;
    for (; slots_[i] != kEmpty; i = (i + 1) & mask) {
      if (keys_[slots_[i]] == key) return slots_[i];
    }
    if (entries_.size() >= kMaxEntries) return kNotCached;
    const auto index = static_cast<std::uint32_t>(entries_.size());
    slots_[i] = index;
    keys_.push_back(key);
    const topo::Route route = network_.route(from, to, channel);
    Entry e;
    e.latency = route.latency.value;
    if (auto cap = network_.flow_cap(from, to)) e.cap = cap->value;
    e.first = static_cast<std::uint32_t>(links_.size());
    e.size = static_cast<std::uint32_t>(route.size);
    for (LinkId l : route.view()) links_.push_back(l.value);
    entries_.push_back(e);
    if (2 * entries_.size() > slots_.size()) grow();
    return index;
  }

  /// Routes kept so far; their indices are 0..size()-1.
  std::size_t size() const { return entries_.size(); }
  const Entry& entry(std::uint32_t index) const { return entries_[index]; }
  /// The entry's links (link ids, which are also the solver's constraint ids).
  std::span<const int> links(const Entry& e) const { return {links_.data() + e.first, e.size}; }

 private:
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  static constexpr std::size_t kInitialSlots = 1024;
  static constexpr std::size_t kMaxEntries = std::size_t{1} << 18;  ///< ~10 MB of entries

  static std::size_t hash(std::uint64_t key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return static_cast<std::size_t>(key);
  }
  void grow() {
    slots_.assign(slots_.size() * 2, kEmpty);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t e = 0; e < keys_.size(); ++e) {
      std::size_t i = hash(keys_[e]) & mask;
      while (slots_[i] != kEmpty) i = (i + 1) & mask;
      slots_[i] = static_cast<std::uint32_t>(e);
    }
  }

  const NetworkModel& network_;
  std::vector<std::uint32_t> slots_;  ///< indices into keys_/entries_, power-of-two many
  std::vector<std::uint64_t> keys_;
  std::vector<Entry> entries_;
  std::vector<int> links_;  ///< every kept route's links, one after another
};

}  // namespace topotune::sim
