#pragma once
// The --algos list of a plan: which algorithm families it searches, and over which channel
// counts. A family alone ("nccl:default") is searched at its library's own channel count
// (NCCL's own for NCCL's algorithms); with the suffix kChannelSweepSuffix ("nccl:default/chN")
// it is also searched with NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS = 1, 2, 4, ... (each such
// row an override of NCCL's count). Without --algos every family is searched, channel sweep
// included. The plan JSON stores the list in the same spelling, so a replay searches the same.

#include <string>
#include <string_view>

#include "core/expected.h"
#include "planning/plan.h"

namespace topotune::tune {

/// The suffix asking for a family's channel sweep.
inline constexpr std::string_view kChannelSweepSuffix = "/chN";

/// Adds one --algos entry to inputs.algorithm_kinds (and, with kChannelSweepSuffix, to
/// inputs.channel_kinds). InvalidArgument for an unknown family, naming the known ones.
Expected<void> add_plan_algorithm(PlanInputs& inputs, std::string_view entry);

/// The --algos spelling of `kind` as `inputs` searches it ("nccl:default" or
/// "nccl:default/chN").
std::string plan_algorithm_entry(const PlanInputs& inputs, AlgoKind kind);

/// True when the plan searches `kind` over channel counts: every family without --algos,
/// those given with kChannelSweepSuffix otherwise.
bool plan_sweeps_channels(const PlanInputs& inputs, AlgoKind kind);

}  // namespace topotune::tune
