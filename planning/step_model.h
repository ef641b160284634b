#pragma once
// From a ModelProfile and a GPU to the per-step compute times the training-step simulation
// needs. Convention (docs/planner.md): compute time = FLOPs x batch / (peak x efficiency);
// backward = 2 x forward FLOPs (gradient w.r.t. inputs and w.r.t. weights), except that layers
// before the first trainable one need no backward at all (autograd stops there). Measured
// times, when the profile has them, replace the FLOP estimate and scale linearly with the
// batch. Bucketing counts fp32 parameters (4 bytes, AMP keeps fp32 master weights); the wire
// carries the communication dtype.

#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "planning/model_profile.h"
#include "planning/training_precision.h"
#include "simulator/training_step.h"
#include "topology/instance_spec.h"

namespace topotune::tune {

// Gradient dtypes on the wire are sched::DataType (fp32, fp16, bf16): one enum for the
// schedules, the runtime and the planner.

/// The batch per GPU a plan uses when neither --batch-per-gpu nor the profile gives one.
inline constexpr int kDefaultBatchPerGpu = 32;

/// How fast one GPU computes.
struct ComputeParams {
  int batch_per_gpu = kDefaultBatchPerGpu;
  double peak_flops = 0;  ///< dense FLOP/s of the precision's peak; 0: the GPU's (plan fills)
  /// achieved / peak; 0 in a plan's inputs: the profile's or its family's fit
  /// (compute_efficiency.h)
  double efficiency = kDefaultComputeEfficiency;
  /// Where batch_per_gpu came from, for the report: "--batch-per-gpu", "profile" (its
  /// measured_batch_per_gpu) or "default".
  std::string batch_source = "default";
  /// The arithmetic the job trains in; nullopt: the GPU's default (a plan fills it in).
  std::optional<TrainingPrecision> precision;
  /// Time every layer from its FLOPs even where the profile has measured times (--timing flops).
  bool flops_timing = false;
};

/// Fails (InvalidArgument) when the profile's measured times were taken on a CPU and would be
/// applied to a GPU, unless compute.flops_timing drops them (a cluster of CPU ranks,
/// topo::kCpuRankGpuModel, is timed by them correctly).
Expected<void> check_measured_device(const ModelProfile& model, const ComputeParams& compute,
                                     const topo::GpuSpec& gpu);

/// Fills what `compute` leaves to the GPU and the profile, as a plan uses it: the precision
/// (the GPU's default), the peak FLOP/s (the precision's, unless given), the efficiency (0: the
/// profile's, its family's fit, or the stated default). Fails as check_measured_device does,
/// and where the precision has no peak on this GPU and the layers are timed from FLOPs.
Expected<void> resolve_compute(ComputeParams& compute, const ModelProfile& model,
                               const topo::GpuSpec& gpu);

/// Per-step layer times and gradients. Errors: no peak FLOP/s and no measured times; FLOP
/// timing of a profile without FLOPs.
Expected<sim::StepModel> make_step_model(const ModelProfile& model, const ComputeParams& compute,
                                         sched::DataType dtype);

/// Total gradient bytes on the wire (trainable parameters x dtype size).
Bytes gradient_bytes(const ModelProfile& model, sched::DataType dtype);

}  // namespace topotune::tune
