#pragma once
// What the emitted NCCL files (nccl.env, torchrun.sh, SageMaker's environment) configure for
// a plan: topotune's tuner plugin with a rules file (planning/nccl_tuner_rules.h) when the
// plan needs NCCL to run something other than its own choice, else nothing, and the comment
// lines that say why. No global NCCL_ALGO, NCCL_PROTO or NCCL_*NCHANNELS: those change every
// collective of every size, and the plan timed only its own buckets.

#include <string>
#include <vector>

#include "planning/plan.h"

namespace topotune::tune {

/// The plugin's configuration for one plan.
struct NcclTuning {
  std::string rules;               ///< nccl_tuner_rules.txt; empty: NCCL keeps its own choices
  std::vector<std::string> notes;  ///< comment lines (no '#', no newline): what and why
};

/// True when running `a` needs NCCL told something: an nccl:<algo> other than NCCL's own
/// choice, or a channel override (/chN).
[[nodiscard]] bool needs_tuner_rules(const AlgorithmChoice& a);

/// For `c`, the NCCL candidate a DDP plan runs (the recommendation, nccl:*): rules when
/// needs_tuner_rules(c.algo), else notes saying NCCL keeps its own choices.
[[nodiscard]] NcclTuning nccl_tuning_for_candidate(const Plan& plan, const Candidate& c);

/// For `hook`, the hierarchical(X) candidate topotune's DDP comm hook runs: rules for the
/// collectives the hook issues (ddp_hook_tuner_rules_file).
[[nodiscard]] NcclTuning nccl_tuning_for_hook(const Plan& plan, const Candidate& hook);

}  // namespace topotune::tune
