#pragma once
// The files `topotune plan --framework fsdp --emit KIND --out DIR` writes, each for one ranked
// row of the sharded plan and saying which (rank, label, predicted step, memory per GPU):
//
//   fsdp       -> fsdp_snippet.py: FSDP2 `fully_shard` per block and on the root with a
//                 DeviceMesh (1-D for fsdp, ("replicate", "shard") for hsdp),
//                 reshard_after_forward, MixedPrecisionPolicy(bf16 params, fp32 reduce),
//                 explicit prefetch lists when prefetch > 1, checkpoint_wrapper per block with
//                 recompute. The best fsdp/hsdp row that fits.
//   deepspeed  -> ds_config.json: zero_optimization stage and DeepSpeed's bucket sizes in
//                 elements, overlap_comm, bf16. The best zero row that fits.
//   all        -> both (each only when a row of its family fits; none fitting is an error).

#include <string>
#include <vector>

#include "core/expected.h"
#include "planning/emitters.h"
#include "planning/sharded_plan.h"

namespace topotune::tune {

/// The files for `kind` ("fsdp", "deepspeed", "all"), each stamped (emitted_stamp.h). Errors:
/// an unknown kind, no fitting row of the kind's family, a block path that is not a Python
/// attribute path.
Expected<std::vector<EmittedFile>> emit_sharded(const ShardedPlan& plan, const std::string& kind);

/// Every file `kind` can write (with "all": both, even when only one family fits), so that
/// an earlier emit's file this one does not write is found stale.
std::vector<std::string> sharded_emitter_file_names(const std::string& kind);

}  // namespace topotune::tune
