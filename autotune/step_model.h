#pragma once
// From a ModelProfile and a GPU to the per-step compute times the training-step simulation
// needs. Convention (docs/planner.md): compute time = FLOPs x batch / (peak x efficiency);
// backward = 2 x forward FLOPs (gradient w.r.t. inputs and w.r.t. weights), except that layers
// before the first trainable one need no backward at all (autograd stops there). Measured
// times, when the profile has them, replace the FLOP estimate and scale linearly with the
// batch. Bucketing counts fp32 parameters (4 bytes, AMP keeps fp32 master weights); the wire
// carries the communication dtype.

#include "algorithms/schedule/collective_spec.h"
#include "autotune/model_profile.h"
#include "core/expected.h"
#include "simulator/training_step.h"

namespace topotune::tune {

// Gradient dtypes on the wire are sched::DataType (fp32, fp16, bf16): one enum for the
// schedules, the runtime and the planner.

/// The default efficiency: about what large transformer/CNN training reaches on A100/H100
/// with mixed precision (MLPerf-class runs report 40-55 % of the tensor peak).
inline constexpr double kDefaultComputeEfficiency = 0.4;

/// How fast one GPU computes.
struct ComputeParams {
  int batch_per_gpu = 32;
  double peak_flops = 0;  ///< dense bf16/fp16 tensor FLOP/s
  /// achieved / peak; a stated default, --compute-efficiency
  double efficiency = kDefaultComputeEfficiency;
};

/// Per-step layer times and gradients. Errors: no peak FLOP/s and no measured times.
Expected<sim::StepModel> make_step_model(const ModelProfile& model, const ComputeParams& compute,
                                         sched::DataType dtype);

/// Total gradient bytes on the wire (trainable parameters x dtype size).
Bytes gradient_bytes(const ModelProfile& model, sched::DataType dtype);

}  // namespace topotune::tune
