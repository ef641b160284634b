#pragma once
// The time of one of topotune's schedule algorithms on a cluster, size by size, as `predict
// --algo NAME` reports it: the closed form (alpha-beta-gamma on the topology's routes) or, with
// the flow simulator, the simulated makespan; both with the one model's fabric and software
// costs (ModelTimers, software_costs), and NCCL's per-operation latency on top of a non-empty
// collective on more than one rank.

#include <string>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/nccl/nccl_params.h"
#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "core/units.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// How the time of a schedule is obtained.
enum class ScheduleTiming {
  ClosedForm,  ///< the algorithm's closed form on the topology's per-level parameters
  Simulated,   ///< the flow simulator's makespan, plus the software costs the wire does not see
};

/// One size's prediction.
struct ScheduleTimeRow {
  Bytes bytes{0};
  Seconds time{0};
  double algbw_GBps = 0;
  double busbw_GBps = 0;  ///< nccl-tests' definition (sched::busbw_factor)
};

/// Every size's prediction, with what it was computed for.
struct ScheduleTimes {
  std::string algorithm;  ///< the algorithm's full name, e.g. "ring(channels=1,chunks=1)"
  int ranks = 0;
  int nodes = 0;
  std::vector<ScheduleTimeRow> rows;
};

/// What the simulated timing may use (the machine's memory; the CLI measures it).
struct ScheduleTimingLimits {
  algo::MemoryBudget schedule;  ///< refuse schedules larger than this before building them
  Bytes simulator{0};           ///< the simulator's resident-size limit (0: none)
};

/// Times `algorithm` (a registry name) for `collective` at each of `sizes` on `spec`.
Expected<ScheduleTimes> schedule_times(const topo::ClusterSpec& spec,
                                       const algo::NcclModelParams& model,
                                       const std::string& algorithm, sched::Collective collective,
                                       const std::vector<Bytes>& sizes, ScheduleTiming timing,
                                       const ScheduleTimingLimits& limits = {});

}  // namespace topotune::tune
