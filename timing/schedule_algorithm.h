#pragma once
// The topotune schedule generator behind a planner choice, so that what `plan` names
// ("hierarchical(rhd)", "ps(k=2)", "ring/ch4") can be generated, simulated and measured as the
// planner timed it. One mapping for every consumer: the closed-form and simulator timers,
// `topotune measure --algos` and the tests that check plan against measurements.

#include <memory>
#include <string>

#include "algorithms/algorithm.h"
#include "core/expected.h"
#include "timing/collective_timer.h"

namespace topotune::tune {

/// The generator for `choice`: ring, tree, rhd, ps with k CPU servers (the Herring/SMDDP
/// placement the planner prices), hierarchical with its inner algorithm; channels =
/// max(1, choice.channels). Errc::InvalidArgument for nccl-default, which is NCCL's choice
/// and has no single schedule.
Expected<std::unique_ptr<algo::Algorithm>> make_schedule_algorithm(const AlgorithmChoice& choice);

/// True when `name` is written in the planner's label syntax (parse_algorithm_choice), not as
/// a registry name: it has "(k=", "(inner)" or "/chN" in it.
bool is_planner_label(const std::string& name);

}  // namespace topotune::tune
