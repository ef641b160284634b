#pragma once
// The rules file topotune's NCCL tuner plugin reads (libnccl-tuner-topotune.so,
// docs/tuner-plugin.md), made from a plan: `plan --emit nccl-env` writes it as
// nccl_tuner_rules.txt whenever the plan needs NCCL to run something other than its own
// choice, and nccl.env loads it (NCCL_TUNER_PLUGIN, NCCL_TUNER_TOPOTUNE_RULES). A rule covers
// one collective, one size range and one communicator shape, unlike NCCL_ALGO / NCCL_PROTO /
// NCCL_*NCHANNELS, which change every collective of every size. The text holds only numbers
// and NCCL's names, never input text.

#include <string>

#include "planning/plan.h"

namespace topotune::tune {

/// The plugin's file name next to nccl.env.
inline constexpr const char* kTunerRulesFile = "nccl_tuner_rules.txt";

/// One `allreduce` line per range of plan.nccl_rules (the predicted algorithm and protocol of
/// the plan's bucket sizes), for the plan's whole communicator (nodes x GPUs per node). A
/// rule names a channel count only when channels_override > 0 (the plan overrides NCCL's own
/// count); otherwise NCCL keeps its count. Sizes outside the ranges and every other
/// collective keep NCCL's own choice.
[[nodiscard]] std::string nccl_tuner_rules_file(const Plan& plan, int channels_override);

/// The rules for what topotune's DDP comm hook (python/topotune/ddp_hooks.py) issues when it
/// runs `hook` (hierarchical(X)) for the buckets of hook.step on the plan's H nodes x G GPUs:
/// NCCL reduce-scatter and all-gather on each node's group (1 node, G ranks) and allreduce on
/// each rail group (H nodes, H ranks) of the bucket's shard. The plan timed those phases as
/// topotune's ring, so each rule names Ring with protocol `any` (NCCL's own protocol for
/// Ring: the plan predicted none); an inner algorithm NCCL has no equivalent of (rhd, ps)
/// gets no rule, and a comment line says so. Sizes are NCCL's nBytes: the whole padded
/// bucket for reduce-scatter and all-gather, the shard for the allreduce.
[[nodiscard]] std::string ddp_hook_tuner_rules_file(const Plan& plan, const Candidate& hook);

}  // namespace topotune::tune
