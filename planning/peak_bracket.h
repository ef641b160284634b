#pragma once
// PeakBracket: a plan computed at both ends of a GPU peak the catalog does not know.
//
// Some GPUs' dense fp16/bf16 peak was not read from their maker, and the figures others publish
// disagree (GB200: 2,250 to 2,640 TFLOPS). The catalog keeps those figures with their sources
// (gpu.peak_fp16_published) instead of choosing one. A plan without --peak-tflops then
// computes its advice at the lowest and at the highest: when both ends recommend the same
// configuration, the unknown figure does not decide the advice and the plan gives it, with
// its times at the end where the recommendation gains less (the claim it can keep at either);
// when they differ the plan asks for the rate (planning/plan.cc, make_plan).

#include <optional>
#include <string>

#include "core/expected.h"
#include "core/units.h"
#include "planning/model_profile.h"
#include "planning/step_model.h"
#include "topology/instance_spec.h"

namespace topotune::tune {

/// What a bracketed plan records beside its times.
struct PeakBracket {
  topo::PublishedRange range;      ///< the published figures' lowest and highest, FLOP/s
  double used_flops = 0;           ///< the end the plan's times are at (its inputs record it)
  double other_flops = 0;          ///< the other end
  Seconds other_step{0};           ///< the recommended step at the other end
  Seconds other_defaults_step{0};  ///< the framework defaults' step at the other end
  /// The compute figures as given (peak 0, efficiency as the user set it): what the plan
  /// records, so that a replay brackets again and comes to the same answer.
  ComputeParams given;
};

/// The published range a plan on `gpu` brackets, or nullopt: only when the inputs give no
/// peak (peak_flops 0), compute is timed from FLOPs (no measured times, or --timing flops),
/// the precision (given, else the GPU's default) runs on the fp16/bf16 tensor peak, and the
/// catalog marks that peak unknown with published figures.
std::optional<topo::PublishedRange> peak_to_bracket(const ComputeParams& compute,
                                                    const ModelProfile& model,
                                                    const topo::GpuSpec& gpu);

/// "2250 to 2640 TFLOP/s": a range as the reports and messages write it.
std::string peak_range_words(const topo::PublishedRange& range);

/// The error when the two ends advise differently: both advices, and what settles it.
Unexpected peak_dependent_advice(const std::string& gpu_model, const topo::PublishedRange& range,
                                 const std::string& low_advice, const std::string& high_advice);

/// The plan's note when both ends agree: the range, the end its times are at, and `other`
/// ("step 7.85 ms, defaults 7.85 ms") at the other end.
std::string peak_bracket_note(const std::string& gpu_model, const topo::PublishedRange& range,
                              double used_flops, double other_flops, const std::string& other);

}  // namespace topotune::tune
