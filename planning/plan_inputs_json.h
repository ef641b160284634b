#pragma once
// A plan's inputs as the JSON object plans store under "inputs": the cluster document, compute,
// lists, NCCL release and parameters, calibration and the model profile, everything
// read_plan_json (plan_replay.cc) needs to plan again. DDP plans (plan_to_json) and sharded
// plans (sharded_plan_to_json) write the same object, so `plan --replay` reads both.

#include <nlohmann/json.hpp>

#include "planning/plan.h"
#include "timing/cluster_shape.h"

namespace topotune::tune {

/// `inputs` as stored in a plan; `shape` is recorded for readers (a replay derives it again).
nlohmann::ordered_json plan_inputs_json(const PlanInputs& inputs, const ClusterShape& shape);

}  // namespace topotune::tune
