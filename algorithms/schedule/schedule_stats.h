#pragma once
// Summary figures of a Schedule, as algorithm headers document them: steps (the depth of the
// dependency DAG) and bytes sent per endpoint. Used by tests, the CLI and the tuner's reports.

#include <cstddef>
#include <vector>

#include "algorithms/schedule/schedule.h"
#include "core/units.h"

namespace topotune::sched {

struct ScheduleStats {
  /// Length of the longest chain of dependent transfers (0 for an empty schedule). For a ring
  /// allreduce this is 2(n-1): every step waits for the previous step's data.
  int steps = 0;
  std::size_t transfers = 0;
  std::vector<Bytes> sent;      ///< bytes sent, per endpoint (ranks first)
  std::vector<Bytes> received;  ///< bytes received, per endpoint
  Bytes min_sent_per_rank{0};   ///< over ranks only (not CPU servers)
  Bytes max_sent_per_rank{0};
};

/// O(transfers + deps).
ScheduleStats schedule_stats(const Schedule& s);

/// Depth of every transfer in the DAG: 1 + the largest depth of its dependencies.
std::vector<int> transfer_depths(const Schedule& s);

}  // namespace topotune::sched
