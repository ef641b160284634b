#include "planning/training_precision.h"

#include "core/enum_names.h"

namespace topotune::tune {
namespace {

constexpr auto kNames = enum_names<TrainingPrecision>({
    {TrainingPrecision::Fp32, "fp32"},
    {TrainingPrecision::Tf32, "tf32"},
    {TrainingPrecision::AmpFp16, "amp-fp16"},
    {TrainingPrecision::AmpBf16, "amp-bf16"},
});

// Unknown figures are never guessed (the catalog marks them unknown): say what times the
// compute instead, a rate the user knows or times measured on that GPU.
Unexpected unknown_peak(const topo::GpuSpec& gpu, const char* what) {
  return fail(Errc::InvalidArgument,
              "the catalog has no " + std::string(what) + " peak for " + gpu.model +
                  " (unpublished or sources disagree): give --peak-tflops with its dense rate "
                  "per GPU, or --model with a profile measured on that GPU "
                  "(python3 -m topotune.profile ... --device cuda)");
}

}  // namespace

const char* precision_name(TrainingPrecision p) { return kNames.name_of(p); }

Expected<TrainingPrecision> parse_precision(const std::string& name) {
  return kNames.parse(name, "precision");
}

TrainingPrecision default_precision(const topo::GpuSpec& gpu) {
  if (gpu.bf16_native) return TrainingPrecision::AmpBf16;
  // Tensor cores (Volta and later) are what the catalog's fp16 tensor peak describes.
  if (gpu.peak_fp16_flops > 0 && gpu.arch != topo::GpuArch::Unknown) {
    return TrainingPrecision::AmpFp16;
  }
  return TrainingPrecision::Fp32;
}

bool is_mixed_precision(TrainingPrecision p) {
  return p == TrainingPrecision::AmpFp16 || p == TrainingPrecision::AmpBf16;
}

Expected<double> precision_peak_flops(const topo::GpuSpec& gpu, TrainingPrecision p) {
  const std::string arch = topo::arch_name(gpu.arch);
  switch (p) {
    case TrainingPrecision::Fp32:
      if (!(gpu.peak_fp32_flops > 0)) return unknown_peak(gpu, "fp32");
      return gpu.peak_fp32_flops;
    case TrainingPrecision::Tf32:
      if (gpu.arch == topo::GpuArch::Volta || gpu.arch == topo::GpuArch::Turing) {
        return fail(Errc::InvalidArgument,
                    "tf32 needs Ampere or later; " + gpu.model + " (" + arch + ") has none");
      }
      if (!gpu.peak_tf32_flops) return unknown_peak(gpu, "TF32 tensor");
      return *gpu.peak_tf32_flops;
    case TrainingPrecision::AmpBf16:
      if (!gpu.bf16_native) {
        return fail(Errc::InvalidArgument, "amp-bf16 needs a GPU that computes bf16 natively; " +
                                               gpu.model + " (" + arch +
                                               ") does not: use amp-fp16");
      }
      [[fallthrough]];
    case TrainingPrecision::AmpFp16:
      if (!(gpu.peak_fp16_flops > 0)) return unknown_peak(gpu, "fp16/bf16 tensor");
      return gpu.peak_fp16_flops;
  }
  return unknown_peak(gpu, "?");
}

}  // namespace topotune::tune
