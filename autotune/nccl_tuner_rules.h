#pragma once
// The rules file topotune's NCCL tuner plugin reads (libnccl-tuner-topotune.so,
// docs/tuner-plugin.md), made from a plan's NCCL buckets. Not yet written by `plan --emit`:
// the emitter that loads it (nccl.env's NCCL_TUNER_PLUGIN and NCCL_TUNER_TOPOTUNE_RULES) is
// the next step. The text holds only numbers and NCCL's names, never input text.

#include <string>

#include "autotune/plan.h"

namespace topotune::tune {

/// One `allreduce` line per range of plan.nccl_rules (the predicted algorithm and protocol of
/// the plan's bucket sizes), for the plan's whole communicator (nodes x GPUs per node). A
/// rule names a channel count only when channels_override > 0 (the plan overrides NCCL's own
/// count); otherwise NCCL keeps its count. Sizes outside the ranges and every other
/// collective keep NCCL's own choice.
[[nodiscard]] std::string nccl_tuner_rules_file(const Plan& plan, int channels_override);

}  // namespace topotune::tune
