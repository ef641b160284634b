#pragma once
// LinkClasses: the links of a run grouped by the routes that cross them (internal to
// simulator/).
//
// Two links crossed by exactly the same routes carry exactly the same flows at every instant:
// a GPU's PCIe uplink and the next host's PCIe downlink of a rail ring (both carry that one
// flow), or the NIC's four links of a pair of GPUs sharing it. For max-min sharing such links
// are one constraint of the smallest capacity among them: with the same users, the others'
// shares are never below it, and when equal they lose the tie on id (see `representative`).
// So the solver gets one constraint per class, ordered as the classes' representative links
// are, which gives the same allocation bit for bit, and the engine keeps one user count and
// busy time per class, which are every member's. On the p4d fabric a rail ring's flow crosses
// six links and two classes, an NVLink flow two links and one class: the solver's and the
// engine's work per flow shrinks with them.
//
// Built once per run from every route the schedule uses (RouteCache, after the engine has
// looked up every transfer's route) by partition refinement: O(sum of route lengths).

#include <cstdint>
#include <span>
#include <vector>

#include "simulator/network_model.h"
#include "simulator/route_cache.h"

namespace topotune::sim {

class LinkClasses {
 public:
  /// Every link its own class, class id = link id: for a run whose routes are not all known.
  static LinkClasses identity(const NetworkModel& network);
  /// The classes of the links that the routes kept in `routes` cross; a link no route crosses
  /// is in no class. Class ids follow the representatives' link ids.
  static LinkClasses of(const RouteCache& routes, const NetworkModel& network);

  std::size_t num_classes() const { return capacity_.size(); }
  /// The class of `link`, or -1 when no route crosses it.
  int class_of(std::size_t link) const { return class_of_[link]; }
  /// A class's capacity: the smallest of its links' bandwidths (bytes/s).
  double capacity(int c) const { return capacity_[static_cast<std::size_t>(c)]; }
  /// The classes a kept route crosses (distinct, in route order): its solver constraints.
  std::span<const int> of_route(const RouteCache& routes, std::uint32_t route) const;

 private:
  bool identity_ = false;             ///< of_route() is the route's links
  std::vector<int> class_of_;         ///< per link
  std::vector<double> capacity_;      ///< per class
  std::vector<std::uint32_t> first_;  ///< per route + 1: its classes in classes_
  std::vector<int> classes_;          ///< every route's classes, one route after another
};

}  // namespace topotune::sim
