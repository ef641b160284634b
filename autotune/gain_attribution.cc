#include "autotune/gain_attribution.h"

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
  std::vector<GainStep> out;
  if (req.model == nullptr || rec.framework != Framework::Ddp ||
      defaults.framework != Framework::Ddp) {
    return out;
  }
  std::vector<std::pair<std::string, Candidate>> variants;
  if (rec.bucket_cap != defaults.bucket_cap || rec.first_bucket != defaults.first_bucket) {
    Candidate c = defaults;
    c.bucket_cap = rec.bucket_cap;
    c.first_bucket = rec.first_bucket;
    // The same cap with another first bucket is a first-bucket change, and says so.
    variants.emplace_back(rec.bucket_cap == defaults.bucket_cap
                              ? "first bucket " + mib_words(rec.first_bucket)
                              : mib_words(rec.bucket_cap) + " buckets",
                          c);
  }
  if (rec.dtype != defaults.dtype) {
    Candidate c = defaults;
    c.dtype = rec.dtype;
    variants.emplace_back(std::string(sched::dtype_name(rec.dtype)) + " gradients", c);
  }
  AlgorithmChoice algo = rec.algo;
  algo.channels = 0;
  if (!(algo == defaults.algo)) {
    Candidate c = defaults;
    c.algo = algo;
    variants.emplace_back(algo.name(), c);
  }
  if (rec.algo.channels > 0 && rec.algo.is_nccl()) {
    Candidate c = defaults;
    c.algo.channels = rec.algo.channels;
    variants.emplace_back(std::to_string(rec.algo.channels) + " channels", c);
  }
  for (auto& [change, candidate] : variants) {
    TT_TRY(Candidate timed, time_ddp_candidate(req, timer, candidate.algo, candidate.dtype,
                                               candidate.first_bucket, candidate.bucket_cap));
    out.push_back({change, std::move(timed)});
  }
  return out;
}

}  // namespace topotune::tune
