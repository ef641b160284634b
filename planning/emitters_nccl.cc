#include "planning/emitters_nccl.h"

#include <cstdio>

#include "planning/nccl_tuner_rules.h"

namespace topotune::tune {
namespace {

std::string step_ms(const Candidate& c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g ms", c.step.step.value * 1e3);
  return buf;
}

// "Simple for 1000-2000 bytes, LL128 for 3000-9000 bytes": what the predictor has NCCL run.
std::string by_range(const Plan& plan) {
  std::string out;
  for (const NcclBucketRule& r : plan.nccl_rules) {
    out += (out.empty() ? "" : ", ") + r.algo + "/" + r.proto + " for " +
           std::to_string(r.min_bytes) + "-" + std::to_string(r.max_bytes) + " bytes";
  }
  return out.empty() ? "no bucket timed" : out;
}

// The same candidate with NCCL's own channel count, to say what the chosen count buys.
const Candidate* default_channels_of(const Plan& plan, const Candidate& c) {
  for (const Candidate& x : plan.report.candidates) {
    AlgorithmChoice a = c.algo;
    a.channels = 0;
    if (x.algo == a && x.dtype == c.dtype && x.bucket_cap == c.bucket_cap &&
        x.framework == c.framework) {
      return &x;
    }
  }
  return nullptr;
}

std::string channel_note(const Plan& plan, const Candidate& c) {
  if (c.algo.channels <= 0) {
    const int own = plan.nccl_rules.empty() ? 0 : plan.nccl_rules.front().channels;
    char margin[16];
    std::snprintf(margin, sizeof margin, "%.1f", kChannelOverrideMargin * 100);
    return "NCCL keeps its own channel count (" + std::to_string(own) +
           "); an override is recommended only where it beats it by more than the model's " +
           margin + " % error";
  }
  const std::string n = std::to_string(c.algo.channels);
  std::string why =
      "OVERRIDE of NCCL's own channel count, unvalidated (no calibration log ran one): " + n +
      " channels (the rules' channels field) are predicted fastest for this plan's buckets, "
      "the SMs they take charged: step " +
      step_ms(c);
  if (const Candidate* d = default_channels_of(plan, c)) {
    why += " vs " + step_ms(*d) + " with NCCL's own count";
  }
  return why + "; NCCL caps the count at the channels the communicator set up at init";
}

}  // namespace

bool needs_tuner_rules(const AlgorithmChoice& a) {
  return a.kind == AlgoKind::NcclRing || a.kind == AlgoKind::NcclTree || a.channels > 0;
}

NcclTuning nccl_tuning_for_candidate(const Plan& plan, const Candidate& c) {
  NcclTuning t;
  const int ranks = plan.cluster.nodes * plan.cluster.shape.gpus_per_host;
  if (!needs_tuner_rules(c.algo)) {
    t.notes.push_back("Nothing set: NCCL's own choice is predicted best (" + step_ms(c) +
                      "; the predictor has it run " + by_range(plan) +
                      "): no tuner plugin, no rules");
    t.notes.push_back(channel_note(plan, c));
    return t;
  }
  t.rules = nccl_tuner_rules_file(plan, c.algo.channels);
  t.notes.push_back(c.algo.name() + " is predicted fastest for this model's buckets (" +
                    step_ms(c) + "): " + std::string(kTunerRulesFile) + " has NCCL run " +
                    by_range(plan) + " for allreduce on the " + std::to_string(plan.cluster.nodes) +
                    "-node, " + std::to_string(ranks) +
                    "-rank communicator, the sizes the plan timed");
  t.notes.push_back(channel_note(plan, c));
  return t;
}

NcclTuning nccl_tuning_for_hook(const Plan& plan, const Candidate& hook) {
  NcclTuning t;
  t.rules = ddp_hook_tuner_rules_file(plan, hook);
  t.notes.push_back(hook.algo.name() + " runs as topotune's DDP comm hook (ddp_snippet.py): " +
                    std::string(kTunerRulesFile) +
                    " has NCCL run Ring (its own protocol for it) for the hook's reduce-scatter "
                    "and all-gather on each node and allreduce on each rail, at the plan's "
                    "bucket sizes, as the plan timed them");
  return t;
}

}  // namespace topotune::tune
