#include "cli/measure_schedules.h"

#include <set>

namespace topotune::cli {

Expected<MeasureLayout> make_measure_layout(const std::string& cluster_file, int ranks_per_node,
                                            const std::vector<std::string>& rank_hosts) {
  MeasureLayout l;
  l.cluster_file = cluster_file;
  const int ranks = static_cast<int>(rank_hosts.size());
  if (ranks_per_node <= 0) {
    const auto distinct = std::set<std::string>(rank_hosts.begin(), rank_hosts.end()).size();
    ranks_per_node = ranks / static_cast<int>(distinct);
  }
  if (ranks_per_node < 1 || ranks % ranks_per_node != 0) {
    return fail(Errc::InvalidArgument, std::to_string(ranks) + " ranks do not fill hosts of " +
                                           std::to_string(ranks_per_node) + " ranks");
  }
  l.ranks_per_node = ranks_per_node;
  l.hosts = ranks / ranks_per_node;
  return l;
}

Expected<sched::Schedule> make_measure_schedule(const std::string& algorithm,
                                                const sched::CollectiveSpec&,
                                                const MeasureLayout&) {
  return fail(Errc::NotFound, "algorithm '" + algorithm +
                                  "': the schedule generators are not in this build yet");
}

}  // namespace topotune::cli
