#pragma once
// A Candidate that runs a Schedule with the host Executor: what `topotune measure` times for
// every algorithm except the transport's own allreduce.

#include <string>

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"
#include "runtime/candidate.h"
#include "runtime/transport.h"

namespace topotune::rt {

/// Plans this rank's part of `schedule` now (outside the timed region) and returns a candidate
/// named `name` that runs it over `transport` with the HostReducer. The candidate owns the
/// schedule and its plan; `transport` must outlive it.
Expected<Candidate> schedule_candidate(std::string name, sched::Schedule schedule,
                                       Transport& transport);

}  // namespace topotune::rt
