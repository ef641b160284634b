#include "simulator/link_classes.h"

#include <algorithm>
#include <numeric>

namespace topotune::sim {

LinkClasses LinkClasses::identity(const NetworkModel& network) {
  LinkClasses out;
  out.identity_ = true;
  const std::size_t n = network.num_links();
  out.class_of_.resize(n);
  std::iota(out.class_of_.begin(), out.class_of_.end(), 0);
  out.capacity_.resize(n);
  for (std::size_t l = 0; l < n; ++l) {
    out.capacity_[l] = network.link_bandwidth(LinkId(static_cast<std::int32_t>(l))).value;
  }
  return out;
}

LinkClasses LinkClasses::of(const RouteCache& routes, const NetworkModel& network) {
  const std::size_t n = network.num_links();
  // Partition refinement: after route r, two links share a (provisional) class iff every route
  // up to r crosses both or neither. Route r moves its links of each class k to a class new
  // for this route, so those it crosses leave those it does not; a link crossed by no route
  // so far is "class -1", slot 0 of the remap.
  std::vector<int> provisional(n, -1);
  std::vector<int> remap{0};                  // per provisional class + 1: its new class
  std::vector<std::uint32_t> remapped_by{0};  // per provisional class + 1: route + 1
  int next = 0;
  for (std::uint32_t r = 0; r < routes.size(); ++r) {
    for (int l : routes.links(routes.entry(r))) {
      int& k = provisional[static_cast<std::size_t>(l)];
      const auto slot = static_cast<std::size_t>(k + 1);
      if (remapped_by[slot] != r + 1) {
        remapped_by[slot] = r + 1;
        remap[slot] = next++;
        remap.push_back(0);
        remapped_by.push_back(0);
      }
      k = remap[slot];
    }
  }
  // Each class's representative: its link of the smallest bandwidth, then of the smallest id.
  // That is the link whose share the original per-link solver would pick among them.
  std::vector<int> rep(static_cast<std::size_t>(next), -1);
  std::vector<double> bandwidth(n, 0);
  for (std::size_t l = 0; l < n; ++l) {
    const int k = provisional[l];
    if (k < 0) continue;
    bandwidth[l] = network.link_bandwidth(LinkId(static_cast<std::int32_t>(l))).value;
    int& best = rep[static_cast<std::size_t>(k)];
    if (best < 0 || bandwidth[l] < bandwidth[static_cast<std::size_t>(best)]) {
      best = static_cast<int>(l);
    }
  }
  // Class ids in the order of the representatives' link ids (a solver's ties go to the
  // smaller constraint id, as they went to the smaller link id).
  std::vector<int> final_id(static_cast<std::size_t>(next), -1);
  LinkClasses out;
  std::vector<int> reps;
  for (int k = 0; k < next; ++k) {
    if (rep[static_cast<std::size_t>(k)] >= 0) reps.push_back(rep[static_cast<std::size_t>(k)]);
  }
  std::sort(reps.begin(), reps.end());
  for (int l : reps) {
    final_id[static_cast<std::size_t>(provisional[static_cast<std::size_t>(l)])] =
        static_cast<int>(out.capacity_.size());
    out.capacity_.push_back(bandwidth[static_cast<std::size_t>(l)]);
  }
  out.class_of_.assign(n, -1);
  for (std::size_t l = 0; l < n; ++l) {
    if (provisional[l] >= 0) out.class_of_[l] = final_id[static_cast<std::size_t>(provisional[l])];
  }
  out.first_.reserve(routes.size() + 1);
  out.first_.push_back(0);
  for (std::uint32_t r = 0; r < routes.size(); ++r) {
    const auto begin = out.classes_.size();
    for (int l : routes.links(routes.entry(r))) {
      const int c = out.class_of_[static_cast<std::size_t>(l)];
      if (std::find(out.classes_.begin() + static_cast<std::ptrdiff_t>(begin), out.classes_.end(),
                    c) == out.classes_.end()) {
        out.classes_.push_back(c);
      }
    }
    out.first_.push_back(static_cast<std::uint32_t>(out.classes_.size()));
  }
  return out;
}

std::span<const int> LinkClasses::of_route(const RouteCache& routes, std::uint32_t route) const {
  if (identity_) return routes.links(routes.entry(route));
  return {classes_.data() + first_[route], first_[route + 1] - first_[route]};
}

}  // namespace topotune::sim
