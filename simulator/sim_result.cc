#include "simulator/sim_result.h"

#include <algorithm>

namespace topotune::sim {

double SimResult::utilisation(LinkId link) const {
  if (makespan.value <= 0) return 0;
  return links[link.index()].busy.value / makespan.value;
}

std::vector<LinkId> SimResult::bottlenecks(std::size_t k) const {
  std::vector<LinkId> used;
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i].bytes.value > 0) {
      used.emplace_back(static_cast<std::int32_t>(i));
    }
  }
  const auto busier = [this](LinkId a, LinkId b) {
    const double ba = links[a.index()].busy.value;
    const double bb = links[b.index()].busy.value;
    return ba > bb || (ba == bb && a < b);
  };
  const std::size_t top = std::min(k, used.size());
  std::partial_sort(used.begin(), used.begin() + static_cast<std::ptrdiff_t>(top), used.end(),
                    busier);
  used.resize(top);
  return used;
}

}  // namespace topotune::sim
