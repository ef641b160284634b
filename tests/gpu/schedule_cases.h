#pragma once
// The allreduce schedules the GPU tests run: every generator of the registry that makes an
// allreduce, with option variants that change the schedule's shape (channels, chunks, server
// placement, the inner algorithm of hierarchical).

#include <string>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/schedule/schedule.h"
#include "core/expected.h"

namespace topotune::rt::testing {

struct ScheduleCase {
  std::string name;  ///< registry name
  algo::AlgorithmOptions options;
  std::string label() const;  ///< name plus the options, for messages
};

/// The cases above, in a fixed order.
std::vector<ScheduleCase> allreduce_cases();

/// The case's allreduce schedule of `bytes` for `ranks` ranks, `gpus_per_host` per host; the
/// symbolic interpreter has proved it (sched::verify) before it is returned.
Expected<sched::Schedule> make_case_schedule(const ScheduleCase& c, int ranks, int gpus_per_host,
                                             std::int64_t bytes, sched::DataType dtype);

}  // namespace topotune::rt::testing
