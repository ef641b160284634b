#include "planning/peak_bracket.h"

#include "core/string_printf.h"

namespace topotune::tune {

std::optional<topo::PublishedRange> peak_to_bracket(const ComputeParams& compute,
                                                    const ModelProfile& model,
                                                    const topo::GpuSpec& gpu) {
  if (compute.peak_flops > 0 || !gpu.peak_fp16_published || gpu.peak_fp16_flops > 0) {
    return std::nullopt;
  }
  // Measured times embody the GPU's rate: no peak decides them.
  if (model.has_measured_times() && !compute.flops_timing) return std::nullopt;
  const TrainingPrecision p = compute.precision.value_or(default_precision(gpu));
  if (!is_mixed_precision(p)) return std::nullopt;
  // amp-bf16 on a GPU without native bf16 stays the error precision_peak_flops gives.
  if (p == TrainingPrecision::AmpBf16 && !gpu.bf16_native) return std::nullopt;
  return gpu.peak_fp16_published;
}

std::string peak_range_words(const topo::PublishedRange& range) {
  return string_printf("%g to %g TFLOP/s", range.low / 1e12, range.high / 1e12);
}

Unexpected peak_dependent_advice(const std::string& gpu_model, const topo::PublishedRange& range,
                                 const std::string& low_advice, const std::string& high_advice) {
  return fail(Errc::InvalidArgument,
              "the catalog has no fp16/bf16 tensor peak for " + gpu_model +
                  " (published figures disagree: " + peak_range_words(range) +
                  ") and the advice depends on it: at " + string_printf("%g", range.low / 1e12) +
                  ", " + low_advice + " At " + string_printf("%g", range.high / 1e12) + ", " +
                  high_advice +
                  " Give --peak-tflops with its dense rate per GPU, or --model with a profile "
                  "measured on that GPU (python3 -m topotune.profile ... --device cuda)");
}

std::string peak_bracket_note(const std::string& gpu_model, const topo::PublishedRange& range,
                              double used_flops, double other_flops, const std::string& other) {
  return "peak: the catalog has no fp16/bf16 tensor peak for " + gpu_model +
         "; published figures disagree (" + peak_range_words(range) +
         "); the advice is the same at both ends, its times are at " +
         string_printf("%g (at %g: ", used_flops / 1e12, other_flops / 1e12) + other +
         "); --peak-tflops sets the rate";
}

}  // namespace topotune::tune
