#pragma once
// Tuner: picks the allreduce algorithm, DDP bucket size and gradient dtype that make a
// data-parallel training step fastest, and says by how much it beats the defaults.
//
// Search space: algorithms (NCCL default, ring, tree, halving-doubling, parameter server with
// k servers, hierarchical with each inner algorithm) x gradient dtype (fp32/bf16/fp16 on the
// wire) x DDP bucket cap (1 MiB doubling up to the whole model, plus DDP's 25 MiB). Every
// point is a full training-step simulation (sim::simulate_ddp_step) whose allreduce times
// come from the `screen` timer (closed forms, memoised per size); the best `top_k` are then
// re-simulated with the `rank` timer (the flow simulator) when one is given, and the final
// order is by that. Baselines, simulated the same way: (a) NCCL's own choice with DDP
// defaults (first bucket 1 MiB, then 25 MiB, fp32) and (b) Horovod defaults (fusion 128 MiB,
// cycle 1 ms, fp32, NCCL's choice). The recommended Horovod knobs come from a sweep of fusion
// threshold x cycle time with the winning algorithm.
//
// Channels: every algorithm is also tried with each count of `channel_counts` (NCCL's via
// NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS, topotune's via AlgorithmOptions::channels). A
// variant enters the grid only if the screen timer finds it faster than the algorithm's
// default count at some full-bucket size; the others cannot change the answer and are pruned
// (topotune's closed forms do not depend on the channel count at all: channels share links).
//
// Recommended DDP candidates are simulated with the first bucket equal to the cap: PyTorch
// >= 2.1 uses bucket_cap_mb for the first bucket when it is passed explicitly, and the
// emitted snippet also sets dist._DEFAULT_FIRST_BUCKET_BYTES so older versions agree.
//
// SMs: NCCL launches one thread block (CTA) per channel (NVIDIA/nccl src/enqueue.cc,
// ncclLaunchKernel: `dim3 grid = {(unsigned)nChannels, 1, 1}`), so a collective on N channels
// holds N of the GPU's SMs while it runs. With `gpu_sms` known, every candidate's backward
// compute is scaled by gpu_sms / (gpu_sms - N), N its channel override or else NCCL's own
// count (`default_channels`), the same rule for every row: an upper bound (as if the
// collectives ran through the whole backward pass), simpler than tracking each overlap.
//
// A 16-bit wire dtype changes numerics, and a channel count overrides NCCL's own, so each is
// an "override"; so is an algorithm other than NCCL's own choice, and one more if stock NCCL
// cannot run it (it needs topotune's runtime). The recommendation is the candidate with the
// fewest overrides whose step is within `dtype_margin` (default 2 %) of the fastest
// (simplest_within_margin): a predicted gain below the model's resolution does not pay for a
// change. (Measured on the emulated 4 x 1 cluster: rhd and ring predicted equal to 0.01 %,
// rhd measured 1-7 % slower over TCP.) A channel override must also beat the fastest
// candidate at NCCL's own count by more than kChannelOverrideMargin (the model's error): no
// calibration log ran one.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "planning/framework.h"
#include "planning/held_out_error.h"
#include "planning/model_profile.h"
#include "planning/step_model.h"
#include "simulator/training_step.h"
#include "timing/collective_timer.h"

namespace topotune::tune {

struct Candidate;

/// A 16-bit wire dtype or a channel count must beat the candidates without it by more than
/// this to be recommended.
inline constexpr double kDefaultDtypeMargin = 0.02;

/// A channel override (/chN) must beat the best candidate at NCCL's own channel count by more
/// than this to be recommended: the model's held-out median busbw error (README, "Accuracy:
/// predicting NCCL"), since no log there ran with a channel override.
inline constexpr double kChannelOverrideMargin = kHeldOutCollectiveError;

/// What to tune for.
struct TuneRequest {
  const ModelProfile* model = nullptr;
  ComputeParams compute;
  int hosts = 1;
  int gpus_per_host = 1;
  std::vector<AlgorithmChoice> algorithms;  ///< empty: default_algorithms(hosts)
  std::vector<sched::DataType> dtypes = {sched::DataType::F32, sched::DataType::BF16,
                                         sched::DataType::F16};
  std::vector<Bytes> bucket_caps;  ///< empty: default_bucket_caps(model)
  /// Channel counts to try besides each algorithm's default; empty: none.
  std::vector<int> channel_counts;
  /// The families whose channel variants are tried; empty: every family.
  std::vector<AlgoKind> channel_kinds;
  /// SMs per GPU; 0: unknown, and no candidate is charged for the SMs its channels take.
  int gpu_sms = 0;
  /// The channels charged to a candidate without a channel override: NCCL's own count.
  int default_channels = 0;
  int top_k = 8;
  double dtype_margin = kDefaultDtypeMargin;
  /// The candidates the job's framework can run (all when empty): the recommendation is one
  /// of them, and the rank stage also times the best `top_k` of them.
  std::function<bool(const Candidate&)> eligible;
};

/// One evaluated point.
struct Candidate {
  AlgorithmChoice algo;
  Bytes bucket_cap{0};
  Bytes first_bucket{0};
  sched::DataType dtype = sched::DataType::F32;
  Framework framework = Framework::Ddp;  ///< Ddp or Horovod: whose bucketing `step` simulates
  Seconds cycle_time{0};                 ///< Horovod only
  sim::StepResult step;
  Seconds allreduce_all{0};   ///< one allreduce of all gradients at once
  double busbw = 0;           ///< bytes/s, nccl-tests definition, of that allreduce
  std::string timer;          ///< which timer produced `step`
  std::string model;          ///< which model timed it (CollectiveTimer::model)
  int channels_charged = 0;   ///< channels whose SMs were taken from backward compute (0: none)
  double backward_scale = 1;  ///< backward compute x this: gpu_sms / (gpu_sms - channels_charged)
};

struct TuneReport {
  std::vector<Candidate> candidates;  ///< ranked, best first (fastest step)
  Candidate recommendation;
  Candidate baseline_ddp;      ///< (a) NCCL defaults + DDP 25 MiB buckets
  Candidate baseline_horovod;  ///< (b) Horovod defaults
  Candidate horovod_best;      ///< best Horovod knobs for the recommended algorithm
  std::string screen_timer;
  std::string rank_timer;           ///< empty when no rank timer ran
  int evaluated = 0;                ///< step simulations in the screen
  int channel_variants_kept = 0;    ///< channel variants the screen let into the grid
  int channel_variants_pruned = 0;  ///< and those it dropped
  std::vector<std::string> notes;   ///< unsupported algorithms skipped, etc.
};

/// The algorithm axis for `hosts` hosts: ps and hierarchical(ps) with k = 1, 2, 4, .. and k =
/// hosts.
std::vector<AlgorithmChoice> default_algorithms(int hosts);

/// 1, 2, 4, ..., up to `max_channels` (NCCL's MAXCHANNELS).
std::vector<int> default_channel_counts(int max_channels);

/// 1 MiB, 2 MiB, ... up to the first cap holding the whole model (fp32), plus 25 MiB.
std::vector<Bytes> default_bucket_caps(const ModelProfile& model);

/// One DDP candidate timed exactly as the search times it (step model, SM charge, `timer`):
/// for what-if rows outside the search grid (gain_attribution.h). Errors: the timer's, no model.
Expected<Candidate> time_ddp_candidate(const TuneRequest& req, const CollectiveTimer& timer,
                                       const AlgorithmChoice& algo, sched::DataType dtype,
                                       Bytes first_bucket, Bytes bucket_cap);

/// The recommendation rule over `ranked` (best first), restricted to `eligible` (all when
/// empty): the first candidate, in ranked order, with the fewest overrides (a 16-bit wire
/// dtype; a channel count; an algorithm other than nccl-default; one stock NCCL cannot run)
/// whose step is within `margin` of the first eligible one's. Null when none is eligible.
const Candidate* simplest_within_margin(const std::vector<Candidate>& ranked, double margin,
                                        const std::function<bool(const Candidate&)>& eligible = {});

/// Runs the search. `rank` may be null (screen only). Errors: bad request, no candidate the
/// timers support.
Expected<TuneReport> tune(const TuneRequest& request, const CollectiveTimer& screen,
                          const CollectiveTimer* rank = nullptr);

}  // namespace topotune::tune
