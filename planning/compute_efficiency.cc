#include "planning/compute_efficiency.h"

#include <optional>

#include "core/enum_names.h"

namespace topotune::tune {
namespace {

// Fits from data/compute_throughput.json (scripts/compute_accuracy.py checks these values):
// one row each, so the fit is that row's efficiency, rounded to 3 digits.
//   convnet fp32: V100 ResNet-50 FP32 367 img/s; tf32: A100 938; amp: A100 2470.
//   transformer fp32: V100 BERT-large seq 128 FP32 50 seq/s; tf32: A100 317; amp: A100 580.
struct FamilyFit {
  double fp32, tf32, amp;
};
constexpr FamilyFit kConvnet{0.574, 0.148, 0.194};
constexpr FamilyFit kTransformer{0.754, 0.481, 0.440};

constexpr auto kFamilyNames = enum_names<ModelFamily>(
    {{ModelFamily::Convnet, "convnet"}, {ModelFamily::Transformer, "transformer"}});

}  // namespace

const char* model_family_name(ModelFamily f) { return kFamilyNames.name_of(f); }

Expected<ModelFamily> parse_model_family(const std::string& name) {
  if (const std::optional<ModelFamily> f = kFamilyNames.find(name)) return *f;
  // A model profile's field, so worded as the profile's other JSON errors are.
  return fail(Errc::ParseError, "'family' must be \"" +
                                    kFamilyNames.names_text("\", \"", "\" or \"") + "\", got \"" +
                                    name + "\"");
}

double family_efficiency(ModelFamily family, TrainingPrecision precision) {
  const FamilyFit& fit = family == ModelFamily::Convnet ? kConvnet : kTransformer;
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

double default_efficiency(std::optional<double> profile_efficiency,
                          std::optional<ModelFamily> family, TrainingPrecision precision) {
  if (profile_efficiency) return *profile_efficiency;
  if (family) return family_efficiency(*family, precision);
  return kDefaultComputeEfficiency;
}

}  // namespace topotune::tune
