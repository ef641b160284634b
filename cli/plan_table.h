#pragma once
// The human-readable plan: ranked candidates, the baselines, the Horovod knobs, notes, and
// the recommendation in one sentence at the end.

#include <string>

#include "autotune/plan.h"

namespace topotune::cli {

/// Renders a plan as a text table (deterministic).
std::string plan_table(const tune::Plan& plan, int rows = 15);

}  // namespace topotune::cli
