#pragma once
// The share of the GPU's peak (for the training precision, training_precision.h) that a
// model family achieves, as a roofline of two sequential costs per training FLOP: the FLOP at
// the precision's peak, and the memory traffic that comes with it at the GPU's HBM bandwidth
// (convolutions and matmuls are compute-bound kernels; the norms, activations and optimizer
// between them are memory-bound, and they run one after the other, so the times add):
//
//   time per FLOP = 1 / peak + bytes_per_flop / bandwidth
//   efficiency    = 1 / (1 + bytes_per_flop x peak / bandwidth)
//
// bytes_per_flop (per family and precision) is fitted on published single-GPU training
// throughput, not guessed: data/compute_throughput.json holds the figures with their sources,
// a row's efficiency is samples/s x 3 x forward FLOPs per sample (data/models) / peak, and its
// bytes_per_flop solves the line above. It is an effective figure (everything that is not the
// FLOPs at peak, charged to bandwidth), which is what lets one value move between GPUs whose
// peak and bandwidth grew by different factors. Fitted on the A100 rows (amp, tf32) and the
// V100 rows (fp32: the only published fp32 figures); judged on the V100 amp rows and this
// project's H100/H200 measurements. `python3 scripts/compute_accuracy.py` recomputes every
// value here from the data file, prints the held-out errors and fails when a constant below
// no longer matches its fit (docs/planner.md has the table).

#include <optional>
#include <string>

#include "core/expected.h"
#include "core/units.h"
#include "planning/training_precision.h"

namespace topotune::tune {

/// What kind of network a profile is: its efficiency's family.
enum class ModelFamily { Convnet, Transformer };

/// "convnet", "transformer".
const char* model_family_name(ModelFamily f);
/// The inverse of model_family_name; anything else is ParseError naming the two.
Expected<ModelFamily> parse_model_family(const std::string& name);

/// Fitted effective HBM bytes per training FLOP of `family` trained in `precision`. amp-fp16
/// and amp-bf16 share one value (the same tensor rate and 16-bit activations; the A100 rows
/// are fp16 autocast).
double family_bytes_per_flop(ModelFamily family, TrainingPrecision precision);

/// The roofline efficiency 1 / (1 + bytes_per_flop x peak_flops / bandwidth), in (0, 1].
/// peak_flops in FLOP/s; both it and bandwidth must be positive.
double roofline_efficiency(double bytes_per_flop, double peak_flops, BytesPerSec bandwidth);

/// `family`'s fitted efficiency on a GPU with this precision peak (FLOP/s) and HBM bandwidth;
/// with the bandwidth unknown, the efficiency on the GPUs the fit was made on (their peak per
/// byte of bandwidth), which is the family's published efficiency there, not the unfitted
/// default; nullopt when the peak is not positive (no roofline to place the fit on).
std::optional<double> family_efficiency(ModelFamily family, TrainingPrecision precision,
                                        double peak_flops, std::optional<BytesPerSec> bandwidth);

/// The efficiency for a profile of unknown family: a stated guess, not a fit (MLPerf-class
/// mixed-precision runs report 40-55 % of the tensor peak), which the plan says it used.
inline constexpr double kDefaultComputeEfficiency = 0.4;

/// The efficiency a plan uses when --compute-efficiency is not given: the profile's own
/// `compute_efficiency`, else its family's fit on this GPU (family_efficiency), else
/// kDefaultComputeEfficiency.
double default_efficiency(std::optional<double> profile_efficiency,
                          std::optional<ModelFamily> family, TrainingPrecision precision,
                          double peak_flops, std::optional<BytesPerSec> bandwidth);

}  // namespace topotune::tune
