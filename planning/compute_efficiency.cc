#include "planning/compute_efficiency.h"

#include <optional>

#include "core/assert.h"
#include "core/enum_names.h"

namespace topotune::tune {
namespace {

// Fits from data/compute_throughput.json (scripts/compute_accuracy.py checks these values):
// one row each, so the fit is that row's (1 / efficiency - 1) x bandwidth / peak, rounded to 3
// significant digits.
//   convnet fp32: V100 ResNet-50 FP32 367 img/s; tf32: A100 80GB 938; amp: A100 80GB 2470.
//   transformer fp32: V100 BERT-large seq 128 FP32 50 seq/s; tf32: A100 317; amp: A100 580.
struct FamilyFit {
  double fp32, tf32, amp;  ///< bytes per training FLOP
};
constexpr FamilyFit kConvnet{0.0426, 0.0755, 0.0271};
constexpr FamilyFit kTransformer{0.0187, 0.0141, 0.00831};
// Peak FLOP per byte of HBM bandwidth of the GPUs the fits were made on, per precision (the
// catalog's figures, 3 significant digits): amp 312 TFLOPS / 2039 GB/s and tf32 156 / 2039 (A100
// SXM4 80GB, p4de.24xlarge); fp32 15.7 / 900 (V100 SXM2, p3.16xlarge and p3dn.24xlarge).
constexpr FamilyFit kFitGpuFlopsPerByte{17.4, 76.5, 153.0};

double pick(const FamilyFit& fit, TrainingPrecision precision) {
  switch (precision) {
    case TrainingPrecision::Fp32:
      return fit.fp32;
    case TrainingPrecision::Tf32:
      return fit.tf32;
    case TrainingPrecision::AmpFp16:
    case TrainingPrecision::AmpBf16:
      return fit.amp;
  }
  return fit.amp;
}

constexpr auto kFamilyNames = enum_names<ModelFamily>(
    {{ModelFamily::Convnet, "convnet"}, {ModelFamily::Transformer, "transformer"}});

// The roofline written on the GPU's balance (peak FLOP/s per byte/s of memory bandwidth) alone.
double roofline_at_balance(double bytes_per_flop, double flops_per_byte) {
  return 1.0 / (1.0 + bytes_per_flop * flops_per_byte);
}

}  // namespace

const char* model_family_name(ModelFamily f) { return kFamilyNames.name_of(f); }

Expected<ModelFamily> parse_model_family(const std::string& name) {
  if (const std::optional<ModelFamily> f = kFamilyNames.find(name)) return *f;
  // A model profile's field, so worded as the profile's other JSON errors are.
  return fail(Errc::ParseError, "'family' must be \"" +
                                    kFamilyNames.names_text("\", \"", "\" or \"") + "\", got \"" +
                                    name + "\"");
}

double family_bytes_per_flop(ModelFamily family, TrainingPrecision precision) {
  return pick(family == ModelFamily::Convnet ? kConvnet : kTransformer, precision);
}

double roofline_efficiency(double bytes_per_flop, double peak_flops, BytesPerSec bandwidth) {
  TT_ASSERT(peak_flops > 0 && bandwidth.value > 0 && bytes_per_flop >= 0,
            "roofline needs a positive peak and bandwidth");
  return roofline_at_balance(bytes_per_flop, peak_flops / bandwidth.value);
}

std::optional<double> family_efficiency(ModelFamily family, TrainingPrecision precision,
                                        double peak_flops, std::optional<BytesPerSec> bandwidth) {
  if (!(peak_flops > 0)) return std::nullopt;
  if (!bandwidth || !(bandwidth->value > 0)) {
    // No bandwidth to place the fit on: the GPU is taken to have the fit GPUs' balance.
    return roofline_at_balance(family_bytes_per_flop(family, precision),
                               pick(kFitGpuFlopsPerByte, precision));
  }
  return roofline_efficiency(family_bytes_per_flop(family, precision), peak_flops, *bandwidth);
}

double default_efficiency(std::optional<double> profile_efficiency,
                          std::optional<ModelFamily> family, TrainingPrecision precision,
                          double peak_flops, std::optional<BytesPerSec> bandwidth) {
  if (profile_efficiency) return *profile_efficiency;
  if (family) {
    if (const std::optional<double> e =
            family_efficiency(*family, precision, peak_flops, bandwidth)) {
      return *e;
    }
  }
  return kDefaultComputeEfficiency;
}

}  // namespace topotune::tune
