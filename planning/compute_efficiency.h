#pragma once
// The share of the GPU's peak (for the training precision, training_precision.h) that a
// model family achieves: fitted on published single-GPU training throughput, not guessed.
// data/compute_throughput.json holds the figures with their sources; an efficiency is
// samples/s x 3 x forward FLOPs per sample (data/models) / peak. Fitted on the A100 rows
// (amp, tf32) and on the V100 rows (fp32: the only published fp32 figures); judged on the
// V100 amp rows and this project's H200 measurements. `python3 scripts/compute_accuracy.py`
// recomputes every value here from the data file, prints the held-out errors and fails when a
// constant below no longer matches its fit (docs/planner.md has the table).

#include <optional>
#include <string>

#include "core/expected.h"
#include "planning/training_precision.h"

namespace topotune::tune {

/// What kind of network a profile is: its efficiency's family.
enum class ModelFamily { Convnet, Transformer };

/// "convnet", "transformer".
const char* model_family_name(ModelFamily f);
/// The inverse of model_family_name; anything else is ParseError naming the two.
Expected<ModelFamily> parse_model_family(const std::string& name);

/// Fitted efficiency (achieved / peak FLOP/s) of `family` trained in `precision`. amp-fp16
/// and amp-bf16 share one value (the same tensor rate; the A100 rows are fp16 autocast).
double family_efficiency(ModelFamily family, TrainingPrecision precision);

/// The efficiency for a profile of unknown family: a stated guess, not a fit (MLPerf-class
/// mixed-precision runs report 40-55 % of the tensor peak), which the plan says it used.
inline constexpr double kDefaultComputeEfficiency = 0.4;

/// The efficiency a plan uses when --compute-efficiency is not given: the profile's own
/// `compute_efficiency`, else its family's fit, else kDefaultComputeEfficiency.
double default_efficiency(std::optional<double> profile_efficiency,
                          std::optional<ModelFamily> family, TrainingPrecision precision);

}  // namespace topotune::tune
