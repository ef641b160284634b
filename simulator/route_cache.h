#pragma once
// RouteCache: the routes a simulation has already asked the network for (internal to
// simulator/).
//
// The event loop routes every transfer twice (its latency when it becomes ready, its links when
// it starts), and composing a route through a topology costs a hundred nanoseconds or so;
// mapping it onto link orbits in a reduced run costs as much again. Yet a ring or a
// hierarchical schedule has few distinct (source, destination, channel) triples: 16.8 M
// representatives of hierarchical(ring) on 8,192 x p5 use about two thousand. So the routes
// are kept in a small open-addressing table; past `kMaxEntries` distinct triples (schedules
// where every pair talks) new ones are routed without being kept, so memory stays bounded.
// Routes are deterministic, so a cached one is exactly the one the network would return.

#include <cstdint>
#include <vector>

#include "simulator/network_model.h"

namespace topotune::sim {

class RouteCache {
 public:
  explicit RouteCache(const NetworkModel& network) : network_(network) {
    slots_.assign(kInitialSlots, kEmpty);
  }

  /// network.route(from, to, channel), from the table when it was asked before. The reference
  /// is valid until the next call.
  const topo::Route& route(NodeId from, NodeId to, int channel) {
    // Device ids of up to 24 bits and channels of 16 (the schedule's limit is 15) pack into
    // one key; anything else is routed directly.
    if (from.value < 0 || to.value < 0 || from.value >= (1 << 24) || to.value >= (1 << 24) ||
        channel < 0 || channel >= (1 << 16)) {
      scratch_ = network_.route(from, to, channel);
      return scratch_;
    }
    const std::uint64_t key = (static_cast<std::uint64_t>(from.value) << 40) |
                              (static_cast<std::uint64_t>(to.value) << 16) |
                              static_cast<std::uint64_t>(channel);
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash(key) & mask;
    for (; slots_[i] != kEmpty; i = (i + 1) & mask) {
      if (keys_[slots_[i]] == key) return routes_[slots_[i]];
    }
    if (routes_.size() >= kMaxEntries) {
      scratch_ = network_.route(from, to, channel);
      return scratch_;
    }
    slots_[i] = static_cast<std::uint32_t>(routes_.size());
    keys_.push_back(key);
    routes_.push_back(network_.route(from, to, channel));
    if (2 * routes_.size() > slots_.size()) grow();
    return routes_.back();
  }

 private:
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  static constexpr std::size_t kInitialSlots = 1024;
  static constexpr std::size_t kMaxEntries = std::size_t{1} << 18;  ///< ~25 MB of routes

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
  std::vector<std::uint32_t> slots_;  ///< indices into keys_/routes_, power-of-two many
  std::vector<std::uint64_t> keys_;
  std::vector<topo::Route> routes_;
  topo::Route scratch_;
};

}  // namespace topotune::sim
