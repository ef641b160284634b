#pragma once
// Framework: what the training job runs its allreduces with, and which of the planner's
// candidates each one runs with the files `topotune plan --emit` writes. One table
// (framework.cc) answers for the planner, the table, the JSON and the emitters.
//
//   ddp       PyTorch DDP on NCCL: NCCL's algorithms (nccl:default, nccl:ring, nccl:tree, any
//             /chN through topotune's NCCL tuner plugin and its rules, for the plan's buckets
//             only); hierarchical(ring) through topotune's comm hook,
//             python/topotune/ddp_hooks.py (kDdpHierarchicalHook).
//   horovod   Horovod on NCCL: NCCL's algorithms (horovod.env pins none: it gives the tuner
//             rule that would), and hierarchical(ring) through HOROVOD_TORUS_ALLREDUCE=1.
//   smddp     SageMaker's data parallelism library: its own AllReduce, on the instances it
//             supports (smddp_supported). topotune does not model that algorithm, so no
//             candidate is an SMDDP one; the plan says so and keeps SMDDP's defaults.
//   topotune  topotune's runtime: every topotune schedule, through `topotune measure`.
//   fsdp      sharded training (FSDP2, HSDP, ZeRO-1/2/3): ranked by the sharded planner
//             (sharded_plan.h), not by the DDP search; it runs no candidate of this table.

#include <string>
#include <string_view>
#include <vector>

#include "algorithms/algorithm_choice.h"
#include "core/expected.h"

namespace topotune::tune {

/// The framework a training job runs its gradient allreduces with.
enum class Framework { Ddp, Horovod, Smddp, Topotune, Fsdp };

/// On: topotune's PyTorch comm hook (python/topotune/ddp_hooks.py, a hierarchical allreduce
/// with the backend's ring between hosts) runs hierarchical(ring) in a DDP job with the
/// emitted ddp_snippet.py. The one switch.
inline constexpr bool kDdpHierarchicalHook = true;

/// "ddp", "horovod", "smddp", "topotune", "fsdp".
const char* framework_name(Framework f);
/// The framework named `name`; InvalidArgument listing them otherwise.
Expected<Framework> parse_framework(std::string_view name);
/// Every framework, in a stable order.
std::vector<Framework> all_frameworks();
/// "ddp, horovod, smddp, topotune, fsdp", for messages and --help.
std::string framework_names_text();
/// True for the frameworks the sharded planner answers (fsdp): `plan` dispatches on it.
bool is_sharded(Framework f);

/// True when `f` runs `a` as emitted (the capability table). SMDDP runs none: its algorithm
/// is not modelled.
bool framework_runs(Framework f, const algo::AlgorithmChoice& a);
/// The frameworks that run `a`, in all_frameworks() order.
std::vector<Framework> frameworks_running(const algo::AlgorithmChoice& a);
/// How `f` is told to run `a` by the emitted files ("NCCL runs Ring via topotune's tuner
/// rules", "HOROVOD_TORUS_ALLREDUCE=1, Horovod >= 0.26", "topotune measure --algos NAME");
/// empty when it does not run it.
std::string how_framework_runs(Framework f, const algo::AlgorithmChoice& a);

/// SageMaker instance types on which SMDDP runs ("ml.p4d.24xlarge", ...).
bool smddp_supported(const std::string& sagemaker_name);
/// Those types as one line, for messages.
std::string smddp_instances_text();

}  // namespace topotune::tune
