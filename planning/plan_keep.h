#pragma once
// --keep: what a plan must leave as it is, so that its advice cannot change it. The search
// skips every candidate that would:
//
//   numerics  the gradients' dtype on the wire: fp32 only (DDP's and Horovod's default), no
//             bf16/fp16 compression hook, which changes gradient numerics.
//   nccl      NCCL's own behaviour: no setting reaches NCCL, so no tuner rules are emitted.
//             Only NCCL's own choice at NCCL's own channel count qualifies: no nccl:ring or
//             nccl:tree pin, no /chN override, and, for a DDP job, not topotune's DDP comm
//             hook either (the emitted rules have NCCL run its collectives as the plan timed
//             them; without the rules it would run untimed choices). Horovod's
//             HOROVOD_TORUS_ALLREDUCE and topotune's runtime set nothing in NCCL: allowed.
//
// The plan records the list (inputs.keep), so --replay keeps the same.

#include <string>
#include <string_view>
#include <vector>

#include "algorithms/algorithm_choice.h"
#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "planning/framework.h"

namespace topotune::tune {

/// What --keep named; all false: the whole search.
struct PlanKeep {
  bool numerics = false;  ///< fp32 gradients only
  bool nccl = false;      ///< no NCCL setting: no tuner rules
  bool operator==(const PlanKeep&) const = default;
};

/// Adds one --keep name ("numerics" or "nccl"); InvalidArgument naming the known ones.
Expected<void> add_plan_keep(PlanKeep& keep, std::string_view name);

/// The names set in `keep`, in a stable order ("numerics", "nccl"): the JSON's inputs.keep.
std::vector<std::string> plan_keep_names(const PlanKeep& keep);

/// True when `framework` runs `a` without changing what `keep` keeps (the dtype is checked
/// where the dtypes are chosen: plan_keep_dtypes).
bool keep_allows(const PlanKeep& keep, Framework framework, const algo::AlgorithmChoice& a);

/// With keep.numerics, the dtypes searched are fp32 only: `dtypes` empty (by hardware) becomes
/// {fp32}; a list with anything else is InvalidArgument (--dtype bf16 with --keep numerics).
Expected<void> plan_keep_dtypes(const PlanKeep& keep, std::vector<sched::DataType>& dtypes);

/// The sentence's clause on what was kept, e.g. " Kept as they are (--keep): fp32 gradients;
/// NCCL's own settings (no tuner rules)."; empty when nothing was kept.
std::string keep_sentence(const PlanKeep& keep);

}  // namespace topotune::tune
