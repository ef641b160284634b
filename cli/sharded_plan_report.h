#pragma once
// The sharded planner's table (`topotune plan --framework fsdp`): one row per strategy, its
// step time, memory per GPU and whether it fits, then the recommendation and the notes.

#include <ostream>

#include "planning/sharded_plan.h"

namespace topotune::cli {

/// Writes `plan` as a table.
void print_sharded_plan(const tune::ShardedPlan& plan, std::ostream& out);

}  // namespace topotune::cli
