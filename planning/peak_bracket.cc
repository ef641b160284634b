#include "planning/peak_bracket.h"

#include "core/string_printf.h"

namespace topotune::tune {

std::optional<topo::PeakRange> peak_to_bracket(const ComputeParams& compute,
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

std::string peak_range_words(const topo::PeakRange& range) {
  return string_printf("%g to %g TFLOP/s", range.low / 1e12, range.high / 1e12);
}

}  // namespace topotune::tune
