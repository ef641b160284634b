#include "autotune/gain_attribution.h"

#include <cstdio>
#include <optional>

#include "autotune/step_model.h"
#include "simulator/training_step.h"

namespace topotune::tune {
namespace {

std::string mib_words(Bytes b) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g MiB buckets", b.as_double() / (1 << 20));
  return buf;
}

// `defaults` with the given fields replaced, timed as the tuner times a DDP candidate.
Expected<Candidate> time_variant(const TuneRequest& req, const CollectiveTimer& timer,
                                 Candidate c) {
  TT_TRY(const sim::StepModel model, make_step_model(*req.model, req.compute, c.dtype));
  std::optional<Error> error;
  const AlgorithmChoice algo = c.algo;
  c.step = sim::simulate_ddp_step(model, {c.first_bucket, c.bucket_cap}, [&](Bytes b) {
    Expected<Seconds> t = timer.allreduce(algo, b);
    if (t) return *t;
    if (!error) error = t.error();
    return Seconds(0);
  });
  if (error) return Unexpected(*error);
  c.timer = timer.name();
  c.model = timer.model(algo);
  return c;
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
    variants.emplace_back(mib_words(rec.bucket_cap), c);
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
    TT_TRY(Candidate timed, time_variant(req, timer, std::move(candidate)));
    out.push_back({change, std::move(timed)});
  }
  return out;
}

}  // namespace topotune::tune
