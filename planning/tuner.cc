#include "planning/tuner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "algorithms/schedule/collective_spec.h"

namespace topotune::tune {
namespace {

// Runs step simulations for one request; keeps the per-dtype step models.
class Evaluator {
 public:
  Evaluator(const TuneRequest& req, std::map<sched::DataType, sim::StepModel> models)
      : req_(req), models_(std::move(models)) {}

  Expected<Candidate> ddp(const CollectiveTimer& timer, const AlgorithmChoice& algo,
                          sched::DataType dtype, Bytes first, Bytes cap) const {
    Candidate c = base(algo, dtype, Framework::Ddp, timer);
    c.bucket_cap = cap;
    c.first_bucket = first;
    std::optional<Error> error;
    c.step = sim::simulate_ddp_step(model(c), {first, cap}, wrap(timer, algo, error));
    if (error) return Unexpected(*error);
    return finish(std::move(c), timer);
  }

  Expected<Candidate> horovod(const CollectiveTimer& timer, const AlgorithmChoice& algo,
                              sched::DataType dtype, Bytes threshold, Seconds cycle) const {
    Candidate c = base(algo, dtype, Framework::Horovod, timer);
    c.bucket_cap = threshold;
    c.cycle_time = cycle;
    std::optional<Error> error;
    c.step = sim::simulate_horovod_step(model(c), {threshold, cycle}, wrap(timer, algo, error));
    if (error) return Unexpected(*error);
    return finish(std::move(c), timer);
  }

 private:
  Candidate base(const AlgorithmChoice& algo, sched::DataType dtype, Framework framework,
                 const CollectiveTimer& timer) const {
    Candidate c;
    c.algo = algo;
    c.dtype = dtype;
    c.framework = framework;
    c.timer = timer.name();
    c.model = timer.model(algo);
    // The SMs the candidate's channels hold (tuner.h): its override, else NCCL's own count.
    const int n = algo.channels > 0 ? algo.channels : req_.default_channels;
    if (req_.gpu_sms > 0 && n > 0) {
      c.channels_charged = std::min(n, req_.gpu_sms - 1);
      c.backward_scale = static_cast<double>(req_.gpu_sms) / (req_.gpu_sms - c.channels_charged);
    }
    return c;
  }

  // The dtype's step model with the candidate's backward compute scaled by its SM charge;
  // memoised per (dtype, channels charged).
  const sim::StepModel& model(const Candidate& c) const {
    const sim::StepModel& plain = models_.at(c.dtype);
    if (c.channels_charged == 0) return plain;
    auto [it, fresh] = charged_.try_emplace({c.dtype, c.channels_charged}, plain);
    if (fresh) {
      for (sim::StepLayer& l : it->second.layers) l.backward = l.backward * c.backward_scale;
    }
    return it->second;
  }

  // The step simulation takes a plain function; the first timer error is kept and reported.
  static sim::AllreduceTime wrap(const CollectiveTimer& timer, const AlgorithmChoice& algo,
                                 std::optional<Error>& error) {
    return [&timer, algo, &error](Bytes b) {
      Expected<Seconds> t = timer.allreduce(algo, b);
      if (t) return *t;
      if (!error) error = t.error();
      return Seconds(std::numeric_limits<double>::infinity());
    };
  }

  Expected<Candidate> finish(Candidate c, const CollectiveTimer& timer) const {
    const Bytes all = gradient_bytes(*req_.model, c.dtype);
    TT_TRY(c.allreduce_all, timer.allreduce(c.algo, all));
    const int p = req_.hosts * req_.gpus_per_host;
    if (c.allreduce_all.value > 0) {
      c.busbw = all.as_double() / c.allreduce_all.value *
                sched::busbw_factor(sched::Collective::Allreduce, p);
    }
    return c;
  }

  const TuneRequest& req_;
  std::map<sched::DataType, sim::StepModel> models_;
  mutable std::map<std::pair<sched::DataType, int>, sim::StepModel> charged_;
};

// True when the request sweeps `a`'s family over channel counts.
bool sweeps_channels(const TuneRequest& req, const AlgorithmChoice& a) {
  const auto& kinds = req.channel_kinds;
  return kinds.empty() || std::find(kinds.begin(), kinds.end(), a.kind) != kinds.end();
}

// Tie order of gradient dtypes: fp32 (no conversion), then bf16 (fp32's range: no loss
// scaling), then fp16.
int dtype_preference(sched::DataType d) {
  switch (d) {
    case sched::DataType::F32:
      return 0;
    case sched::DataType::BF16:
      return 1;
    case sched::DataType::F16:
      return 2;
  }
  return 3;
}

// Fastest step first; ties broken by a fixed order so output is deterministic.
bool faster(const Candidate& a, const Candidate& b) {
  if (a.step.step != b.step.step) return a.step.step < b.step.step;
  if (a.step.exposed_comm != b.step.exposed_comm) return a.step.exposed_comm < b.step.exposed_comm;
  if (a.dtype != b.dtype) return dtype_preference(a.dtype) < dtype_preference(b.dtype);
  if (a.algo != b.algo) return a.algo < b.algo;
  if (a.bucket_cap != b.bucket_cap) return a.bucket_cap < b.bucket_cap;
  return a.cycle_time < b.cycle_time;
}

// True when `variant` is faster than `base` at some size: only then can it change the answer.
bool ever_faster(const CollectiveTimer& timer, const AlgorithmChoice& variant,
                 const AlgorithmChoice& base, const std::vector<Bytes>& sizes) {
  for (Bytes b : sizes) {
    const Expected<Seconds> v = timer.allreduce(variant, b);
    if (!v) return false;
    const Expected<Seconds> d = timer.allreduce(base, b);
    if (d && v->value < d->value * (1 - 1e-9)) return true;
  }
  return false;
}

// The algorithm axis with the channel variants the screen keeps (a variant follows its base).
std::vector<AlgorithmChoice> with_channels(const TuneRequest& req, const CollectiveTimer& timer,
                                           TuneReport& report) {
  std::vector<Bytes> sizes;  // every full bucket's wire size
  for (sched::DataType d : req.dtypes) {
    for (Bytes cap : req.bucket_caps) sizes.push_back(Bytes(cap.value / 4 * sched::dtype_size(d)));
  }
  std::vector<AlgorithmChoice> out;
  for (const AlgorithmChoice& a : req.algorithms) {
    out.push_back(a);
    if (a.channels != 0 || !sweeps_channels(req, a) || !timer.allreduce(a, 1_MiB)) continue;
    for (int c : req.channel_counts) {
      AlgorithmChoice v = a;
      v.channels = c;
      if (ever_faster(timer, v, a, sizes)) {
        out.push_back(v);
        ++report.channel_variants_kept;
      } else {
        ++report.channel_variants_pruned;
      }
    }
  }
  return out;
}

Expected<std::vector<Candidate>> screen_all(const TuneRequest& req, const Evaluator& eval,
                                            const CollectiveTimer& timer, TuneReport& report) {
  std::vector<Candidate> all;
  for (const AlgorithmChoice& a : with_channels(req, timer, report)) {
    if (auto probe = timer.allreduce(a, 1_MiB); !probe) {
      report.notes.push_back(a.name() + " skipped: " + probe.error().message);
      continue;
    }
    for (sched::DataType d : req.dtypes) {
      for (Bytes cap : req.bucket_caps) {
        TT_TRY(Candidate c, eval.ddp(timer, a, d, cap, cap));
        all.push_back(std::move(c));
      }
    }
  }
  report.evaluated = static_cast<int>(all.size());
  if (all.empty()) return fail(Errc::Unsupported, "no algorithm is supported on this cluster");
  std::sort(all.begin(), all.end(), faster);
  return all;
}

// The best Horovod knobs per searched algorithm Horovod runs, on `timer` (the screen), fastest
// first; empty when none of them is searched.
Expected<std::vector<Candidate>> best_horovod(const TuneRequest& req, const Evaluator& eval,
                                              const CollectiveTimer& timer, sched::DataType dtype) {
  std::vector<Candidate> out;
  const AlgoKind kinds[] = {AlgoKind::NcclDefault, AlgoKind::NcclRing, AlgoKind::NcclTree,
                            AlgoKind::Hierarchical};
  for (AlgoKind k : kinds) {
    AlgorithmChoice a;
    a.kind = k;  // Hierarchical: HOROVOD_TORUS_ALLREDUCE, inner ring
    // Only what the request searches (--algos): a Horovod best outside it would contradict it.
    const bool searched = std::any_of(req.algorithms.begin(), req.algorithms.end(),
                                      [&a](const AlgorithmChoice& x) { return x == a; });
    if (!searched || !timer.allreduce(a, 1_MiB)) continue;
    std::optional<Candidate> best;
    for (Bytes threshold : req.bucket_caps) {
      for (double ms : {1.0, 2.0, 5.0, 10.0}) {
        TT_TRY(Candidate c, eval.horovod(timer, a, dtype, threshold, Seconds(ms * 1e-3)));
        if (!best || faster(c, *best)) best = std::move(c);
      }
    }
    out.push_back(std::move(*best));
  }
  std::sort(out.begin(), out.end(), faster);
  return out;
}

// Several candidates share an algorithm: say each thing once.
void add_note(TuneReport& report, std::string note) {
  if (std::find(report.notes.begin(), report.notes.end(), note) == report.notes.end()) {
    report.notes.push_back(std::move(note));
  }
}

bool is_topotune_schedule(const AlgorithmChoice& a) { return !a.is_nccl(); }

// The closed forms of topotune's schedules do not depend on the channel count, so the screen
// pruned every such variant; the flow simulator does see channels (spread over the NICs where
// a GPU has several, as on p5). For each topotune algorithm in the ranked block (first
// `k`), at its best ranked bucket cap and dtype, doubling channel counts are simulated while
// each beats the previous one; the winners join the ranked block.
void rank_channel_variants(const TuneRequest& req, const Evaluator& eval,
                           const CollectiveTimer& timer, TuneReport& report, std::size_t& k) {
  auto& all = report.candidates;
  std::vector<Candidate> found;
  std::vector<AlgorithmChoice> tried;
  for (std::size_t i = 0; i < k; ++i) {
    const Candidate& c = all[i];  // the block is sorted: the first of an algorithm is its best
    if (!is_topotune_schedule(c.algo) || c.algo.channels != 0 || !sweeps_channels(req, c.algo) ||
        std::find(tried.begin(), tried.end(), c.algo) != tried.end()) {
      continue;
    }
    tried.push_back(c.algo);
    Seconds last = c.step.step;
    for (int n : req.channel_counts) {
      if (n < 2) continue;
      AlgorithmChoice v = c.algo;
      v.channels = n;
      auto r = eval.ddp(timer, v, c.dtype, c.first_bucket, c.bucket_cap);
      if (!r) {
        add_note(report, v.name() + ": rank timer: " + r.error().message);
        break;
      }
      if (!(r->step.step < last)) break;
      last = r->step.step;
      found.push_back(std::move(*r));
    }
  }
  report.channel_variants_kept += static_cast<int>(found.size());
  all.insert(all.begin() + static_cast<std::ptrdiff_t>(k), found.begin(), found.end());
  k += found.size();
}

// Ranks the best `count` candidates matching `pred` below the ranked block (the first `k`)
// with `timer` and moves them into the block, unless the block already holds `count`.
void pull_into_block(const Evaluator& eval, const CollectiveTimer& timer,
                     std::vector<Candidate>& all, std::size_t& k,
                     const std::function<bool(const Candidate&)>& pred, int count) {
  int have = static_cast<int>(std::count_if(all.begin(), all.begin() + k, pred));
  for (std::size_t i = k; i < all.size() && have < count; ++i) {
    if (!pred(all[i])) continue;
    auto again = eval.ddp(timer, all[i].algo, all[i].dtype, all[i].first_bucket, all[i].bucket_cap);
    if (!again) continue;
    all[i] = std::move(*again);
    std::rotate(all.begin() + k, all.begin() + i, all.begin() + i + 1);
    ++k;
    ++have;
  }
}

// Re-simulates the screen's best `top_k` candidates with the rank timer and re-orders them.
void rank_top(const TuneRequest& req, const Evaluator& eval, const CollectiveTimer& timer,
              TuneReport& report) {
  auto& all = report.candidates;
  std::size_t k = std::min<std::size_t>(req.top_k, all.size());
  for (std::size_t i = 0; i < k; ++i) {
    const Candidate& c = all[i];
    auto ranked = eval.ddp(timer, c.algo, c.dtype, c.first_bucket, c.bucket_cap);
    if (ranked)
      all[i] = std::move(*ranked);
    else
      add_note(report, c.algo.name() + ": rank timer: " + ranked.error().message);
  }
  // The recommendation may fall back to the best fp32 candidate, and must be one the job's
  // framework runs: rank those with the same timer too, so the comparison is like for like.
  const auto is_fp32 = [](const Candidate& c) { return c.dtype == sched::DataType::F32; };
  pull_into_block(eval, timer, all, k, is_fp32, 1);
  // The best of topotune's own schedules too, when NCCL's algorithms fill the screen's top (as
  // on large clusters): the rank stage then times it on the full fabric, against NCCL's.
  const auto own = [](const Candidate& c) { return !c.algo.is_nccl(); };
  pull_into_block(eval, timer, all, k, own, 1);
  if (req.eligible) pull_into_block(eval, timer, all, k, req.eligible, req.top_k);
  std::sort(all.begin(), all.begin() + k, faster);
  if (req.channel_counts.empty()) return;
  rank_channel_variants(req, eval, timer, report, k);
  std::sort(all.begin(), all.begin() + k, faster);
}

// The recommendation comes from the rows the final timer timed (a screened-only row is not
// comparable with them), among those the framework runs; if it runs none, the best of all,
// which the caller sees it cannot run.
Candidate recommend(const TuneRequest& req, const std::vector<Candidate>& ranked,
                    const std::string& final_timer) {
  const auto runs = [&req, &final_timer](const Candidate& c) {
    return c.timer == final_timer && (!req.eligible || req.eligible(c));
  };
  // A channel override only where it beats NCCL's own count by more than the model's error.
  double own = std::numeric_limits<double>::infinity();
  for (const Candidate& c : ranked) {
    if (runs(c) && c.algo.channels == 0) own = std::min(own, c.step.step.value);
  }
  const auto eligible = [&runs, own](const Candidate& c) {
    return runs(c) &&
           (c.algo.channels == 0 || c.step.step.value < own * (1 - kChannelOverrideMargin));
  };
  const Candidate* rec = simplest_within_margin(ranked, req.dtype_margin, eligible);
  if (!rec) rec = simplest_within_margin(ranked, req.dtype_margin, req.eligible);
  if (!rec) rec = simplest_within_margin(ranked, req.dtype_margin);
  return *rec;
}

}  // namespace

const Candidate* simplest_within_margin(const std::vector<Candidate>& ranked, double margin,
                                        const std::function<bool(const Candidate&)>& eligible) {
  const auto ok = [&eligible](const Candidate& c) { return !eligible || eligible(c); };
  const auto overrides = [](const Candidate& c) {
    const AlgoKind k = c.algo.kind;
    const bool stock_nccl = c.algo.is_nccl();
    return (c.dtype != sched::DataType::F32 ? 1 : 0) + (c.algo.channels > 0 ? 1 : 0) +
           (k != AlgoKind::NcclDefault ? 1 : 0) + (stock_nccl ? 0 : 1);
  };
  const auto best = std::find_if(ranked.begin(), ranked.end(), ok);
  if (best == ranked.end()) return nullptr;
  const double limit = best->step.step.value * (1 + margin);
  for (int level = 0; level < overrides(*best); ++level) {
    for (const Candidate& c : ranked) {
      if (ok(c) && overrides(c) == level && c.step.step.value <= limit) return &c;
    }
  }
  return &*best;
}

std::vector<AlgorithmChoice> default_algorithms(int hosts) {
  // Server counts for the families that take them (ps(k=N)): powers of two, and one per host.
  std::vector<int> ks;
  for (int k = 1; k < hosts; k *= 2) ks.push_back(k);
  if (hosts >= 2) ks.push_back(hosts);
  return algo::plannable_choices(ks);
}

std::vector<int> default_channel_counts(int max_channels) {
  std::vector<int> out;
  for (int c = 1; c <= max_channels; c *= 2) out.push_back(c);
  return out;
}

std::vector<Bytes> default_bucket_caps(const ModelProfile& model) {
  const Bytes whole(model.trainable_params() * 4);
  std::vector<Bytes> caps = {25_MiB};
  for (Bytes b = 1_MiB;; b = b * 2) {
    caps.push_back(b);
    if (b >= whole) break;
  }
  std::sort(caps.begin(), caps.end());
  caps.erase(std::unique(caps.begin(), caps.end()), caps.end());
  return caps;
}

Expected<TuneReport> tune(const TuneRequest& request, const CollectiveTimer& screen,
                          const CollectiveTimer* rank) {
  if (request.model == nullptr) return fail(Errc::InvalidArgument, "no model");
  if (request.hosts < 1 || request.gpus_per_host < 1) {
    return fail(Errc::InvalidArgument, "hosts and GPUs per host must be positive");
  }
  TuneRequest req = request;
  if (req.algorithms.empty()) req.algorithms = default_algorithms(req.hosts);
  if (req.bucket_caps.empty()) req.bucket_caps = default_bucket_caps(*req.model);
  if (req.dtypes.empty()) return fail(Errc::InvalidArgument, "no gradient dtype to search");
  std::map<sched::DataType, sim::StepModel> models;
  for (sched::DataType d : {sched::DataType::F32, sched::DataType::BF16, sched::DataType::F16}) {
    TT_TRY(models[d], make_step_model(*req.model, req.compute, d));
  }
  const Evaluator eval(req, std::move(models));
  const CachedTimer cached_screen(screen);
  std::optional<CachedTimer> cached_rank;
  if (rank) cached_rank.emplace(*rank);
  const CollectiveTimer& final_timer =
      cached_rank ? static_cast<const CollectiveTimer&>(*cached_rank) : cached_screen;

  TuneReport report;
  report.screen_timer = screen.name();
  if (rank) report.rank_timer = rank->name();
  TT_TRY(report.candidates, screen_all(req, eval, cached_screen, report));
  if (!req.channel_counts.empty()) {
    report.notes.push_back("channels: " + std::to_string(report.channel_variants_kept) +
                           " variants kept, " + std::to_string(report.channel_variants_pruned) +
                           " pruned (no faster than the algorithm's default count at any bucket "
                           "size on the screen)");
  }
  if (cached_rank) rank_top(req, eval, final_timer, report);
  report.recommendation = recommend(req, report.candidates, final_timer.name());
  const AlgorithmChoice nccl{AlgoKind::NcclDefault};
  // The frameworks' own defaults, as sim::DdpOptions and sim::HorovodOptions cite them.
  const sim::DdpOptions ddp_defaults;
  const sim::HorovodOptions hvd_defaults;
  TT_TRY(report.baseline_ddp, eval.ddp(final_timer, nccl, sched::DataType::F32,
                                       ddp_defaults.first_bucket_bytes, ddp_defaults.bucket_cap));
  TT_TRY(report.baseline_horovod,
         eval.horovod(final_timer, nccl, sched::DataType::F32, hvd_defaults.fusion_threshold,
                      hvd_defaults.cycle_time));
  TT_TRY(std::vector<Candidate> hvd,
         best_horovod(req, eval, cached_screen, report.recommendation.dtype));
  if (cached_rank) {
    // Each algorithm's screened best, re-ranked: the screen's order between NCCL's algorithms
    // (predictor) and hierarchical (closed form) need not survive the simulator.
    for (Candidate& h : hvd) {
      auto again = eval.horovod(final_timer, h.algo, h.dtype, h.bucket_cap, h.cycle_time);
      if (again) h = std::move(*again);
    }
    std::sort(hvd.begin(), hvd.end(), faster);
  }
  if (hvd.empty()) {
    report.horovod_best = report.baseline_horovod;
    add_note(report,
             "horovod: no algorithm Horovod runs is among those searched (--algos): "
             "its best is its defaults");
  } else {
    report.horovod_best = std::move(hvd.front());
  }
  return report;
}

Expected<Candidate> time_ddp_candidate(const TuneRequest& req, const CollectiveTimer& timer,
                                       const AlgorithmChoice& algo, sched::DataType dtype,
                                       Bytes first_bucket, Bytes bucket_cap) {
  if (req.model == nullptr) return fail(Errc::InvalidArgument, "no model");
  std::map<sched::DataType, sim::StepModel> models;
  TT_TRY(models[dtype], make_step_model(*req.model, req.compute, dtype));
  const Evaluator eval(req, std::move(models));
  return eval.ddp(timer, algo, dtype, first_bucket, bucket_cap);
}

}  // namespace topotune::tune
