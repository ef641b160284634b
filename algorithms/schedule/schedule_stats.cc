#include "algorithms/schedule/schedule_stats.h"

#include <algorithm>

namespace topotune::sched {

std::vector<int> transfer_depths(const Schedule& s) {
  std::vector<int> depth(s.size(), 1);
  for (std::size_t i = 0; i < s.size(); ++i) {
    for (TransferId d : s.deps(TransferId(static_cast<std::int32_t>(i)))) {
      depth[i] = std::max(depth[i], depth[d.index()] + 1);
    }
  }
  return depth;
}

ScheduleStats schedule_stats(const Schedule& s) {
  ScheduleStats st;
  st.transfers = s.size();
  st.sent.assign(static_cast<std::size_t>(s.num_endpoints()), Bytes(0));
  st.received.assign(static_cast<std::size_t>(s.num_endpoints()), Bytes(0));
  for (const Transfer& t : s.transfers()) {
    st.sent[t.src.index()] += t.slice.size;
    st.received[t.dst.index()] += t.slice.size;
  }
  for (int d : transfer_depths(s)) st.steps = std::max(st.steps, d);
  const auto ranks = std::span<const Bytes>(st.sent).first(static_cast<std::size_t>(s.num_ranks()));
  st.min_sent_per_rank = *std::min_element(ranks.begin(), ranks.end());
  st.max_sent_per_rank = *std::max_element(ranks.begin(), ranks.end());
  return st;
}

}  // namespace topotune::sched
