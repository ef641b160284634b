#pragma once
// What each change of a DDP recommendation buys on its own. A plan that says "64 MiB buckets,
// bf16 gradients and NCCL_ALGO=Ring: 1.9x" invites the user to credit the whole gain to the
// first knob they read; the bucket alone may buy a fraction of it and the dtype the rest. So
// each change the recommendation makes to DDP's defaults (NCCL's own choice, first bucket
// 1 MiB then 25 MiB buckets, fp32 gradients) is timed alone, on the same timer and step
// model as the recommendation, and reported beside the whole.

#include <string>
#include <vector>

#include "core/expected.h"
#include "planning/tuner.h"
#include "timing/collective_timer.h"

namespace topotune::tune {

/// Which knob a GainStep turns: readers find a step by this, not by its words.
enum class GainKnob { Buckets, Dtype, Algorithm, Channels };

/// DDP's defaults with one of the recommendation's changes applied, timed.
struct GainStep {
  GainKnob knob = GainKnob::Buckets;  ///< buckets: the cap and/or the first bucket
  /// "64 MiB buckets", "first bucket 25 MiB", "bf16 gradients", "nccl:ring", "8 channels"
  std::string change;
  Candidate alone;  ///< the defaults with only that change
};

/// Each change `rec` makes to `defaults` (a DDP candidate: bucket cap with its first bucket,
/// wire dtype, algorithm, channel count), timed alone with `timer` on `req`'s model and
/// compute. Empty when `rec` is not a DDP candidate or changes nothing. Errors: the timer's.
Expected<std::vector<GainStep>> attribute_ddp_gain(const TuneRequest& req,
                                                   const CollectiveTimer& timer,
                                                   const Candidate& rec, const Candidate& defaults);

}  // namespace topotune::tune
