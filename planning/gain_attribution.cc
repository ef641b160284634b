#include "planning/gain_attribution.h"

#include <cstdio>

namespace topotune::tune {
namespace {

std::string mib_words(Bytes b) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g MiB", b.as_double() / (1 << 20));
  return buf;
}

}  // namespace

Expected<std::vector<GainStep>> attribute_ddp_gain(const TuneRequest& req,
                                                   const CollectiveTimer& timer,
                                                   const Candidate& rec,
                                                   const Candidate& defaults) {
  // Each step's `alone` starts as the defaults with its change, then is timed in place.
  std::vector<GainStep> out;
  if (req.model == nullptr || rec.framework != Framework::Ddp ||
      defaults.framework != Framework::Ddp) {
    return out;
  }
  if (rec.bucket_cap != defaults.bucket_cap || rec.first_bucket != defaults.first_bucket) {
    Candidate c = defaults;
    c.bucket_cap = rec.bucket_cap;
    c.first_bucket = rec.first_bucket;
    // The same cap with another first bucket is a first-bucket change, and says so.
    out.push_back({GainKnob::Buckets,
                   rec.bucket_cap == defaults.bucket_cap
                       ? "first bucket " + mib_words(rec.first_bucket)
                       : mib_words(rec.bucket_cap) + " buckets",
                   c});
  }
  if (rec.dtype != defaults.dtype) {
    Candidate c = defaults;
    c.dtype = rec.dtype;
    out.push_back({GainKnob::Dtype, std::string(sched::dtype_name(rec.dtype)) + " gradients", c});
  }
  AlgorithmChoice algo = rec.algo;
  algo.channels = 0;
  if (!(algo == defaults.algo)) {
    Candidate c = defaults;
    c.algo = algo;
    out.push_back({GainKnob::Algorithm, algo.name(), c});
  }
  if (rec.algo.channels > 0 && rec.algo.is_nccl()) {
    Candidate c = defaults;
    c.algo.channels = rec.algo.channels;
    out.push_back({GainKnob::Channels, std::to_string(rec.algo.channels) + " channels", c});
  }
  for (GainStep& g : out) {
    const Candidate c = g.alone;
    TT_TRY(g.alone, time_ddp_candidate(req, timer, c.algo, c.dtype, c.first_bucket, c.bucket_cap));
  }
  return out;
}

}  // namespace topotune::tune
