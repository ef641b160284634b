#pragma once
// ShardUnits: a model cut into the units a sharded data-parallel job gathers and reduces one
// at a time, and its forward order as compute segments.
//
// FSDP2 is applied per transformer block and then to the root (`fully_shard(block)` for each
// block, then `fully_shard(model)`; pytorch/pytorch torch/distributed/fsdp/_fully_shard/
// _fully_shard.py docstring: "apply fully_shard bottom-up"), so a block is one unit and the
// root unit holds what no block owns (embeddings, final norm, LM head). A layer belongs to
// block unit "P.N" when its name has a dotted integer component ("model.layers.3.mlp.up_proj"
// -> "model.layers.3"); every other layer belongs to the root (unit 0). Compute times come
// from the DDP step model (make_step_model), so both planners time compute alike.

#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/units.h"
#include "planning/model_profile.h"
#include "planning/step_model.h"

namespace topotune::tune {

/// One unit: the parameters one all-gather materialises and one reduce-scatter reduces.
struct ShardUnit {
  std::string name;         ///< "root" or the block's prefix ("model.layers.3")
  std::int64_t params = 0;  ///< trainable elements
  bool root = false;        ///< the root unit: FSDP2 keeps it gathered after forward
};

/// Consecutive layers of one unit in forward order, with their compute.
struct ComputeSegment {
  int unit = 0;
  Seconds forward{0};
  Seconds backward{0};
};

struct ShardUnits {
  std::vector<ShardUnit> units;          ///< units[0] is the root
  std::vector<ComputeSegment> segments;  ///< forward order
  std::int64_t total_params() const;     ///< sum of units' params
  std::int64_t largest_unit() const;     ///< most params of one unit
  std::int64_t largest_block() const;    ///< most params of one non-root unit
  std::int64_t root_params() const;      ///< the root unit's params
};

/// Cuts `model` into units; compute from make_step_model(model, compute).
Expected<ShardUnits> make_shard_units(const ModelProfile& model, const ComputeParams& compute);

/// Full activation recomputation (activation checkpointing of every block): each block's
/// forward runs again in its backward, so a non-root segment's backward gains its forward.
ShardUnits with_recompute(const ShardUnits& in);

/// Each non-root unit of more than `max_params` split into ceil(params / max_params) equal
/// pieces, its segments' compute split alike: how DeepSpeed ZeRO-3 fetches a block in
/// prefetch buckets rather than as one unit.
ShardUnits split_units(const ShardUnits& in, std::int64_t max_params);

}  // namespace topotune::tune
