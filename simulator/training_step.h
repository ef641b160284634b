#pragma once
// Training-step simulation: one data-parallel step with the gradient allreduce overlapped with
// the backward pass, the way PyTorch DDP and Horovod schedule it.
//
// The model is a list of layers in forward order, each with its forward and backward compute
// time for one step on one GPU, and the gradient tensors in registration order (the order of
// `model.parameters()`), each owned by a layer. Backward runs the layers in reverse; a layer's
// gradients are ready when its backward ends. Gradients are then grouped and allreduced:
//
// - DDP (torch/csrc/distributed/c10d/reducer.cpp, compute_bucket_assignment_by_size): tensors
//   in gradient-ready order are appended to the open bucket; the bucket closes as soon as its
//   size reaches the limit (`size >= limit`, so a bucket may overshoot by its last tensor).
//   The first bucket's limit is first_bucket_bytes (dist._DEFAULT_FIRST_BUCKET_BYTES, 1 MiB),
//   every later one bucket_cap (bucket_cap_mb, 25 MiB). Buckets are launched strictly in
//   order, each once all its gradients are ready, on one communication stream (FIFO): bucket
//   i starts at max(ready_i, end_{i-1}). Sizes count the parameter dtype (fp32 master weights:
//   4 bytes/element); the bytes sent are the communication dtype's (a bf16 compress hook
//   halves them). This is the steady state after DDP's first-iteration bucket rebuild.
// - Horovod (horovod/common/operations.cc RunLoopOnce): a background loop wakes every
//   cycle_time; the tensors that became ready since the last cycle are fused, in ready order,
//   into buffers of at most fusion_threshold bytes (a larger tensor goes alone) and enqueued
//   on the one communication stream.
//
// Step time = forward + the later of (backward end, last allreduce end). The optimizer step,
// data loading and the slowdown of compute by communication kernels are not modelled (they
// are the same for every candidate of a plan, or second order). Exposed communication is the
// part of the step the allreduces add: step - forward - backward.

#include <functional>
#include <span>
#include <vector>

#include "core/units.h"

namespace topotune::sim {

/// Compute time of one layer for one step on one GPU.
struct StepLayer {
  Seconds forward{0};
  Seconds backward{0};
};

/// One gradient tensor, in registration order.
struct GradTensor {
  Bytes bucket_bytes{0};  ///< size as DDP counts it for bucketing (numel x param dtype size)
  Bytes comm_bytes{0};    ///< size on the wire (numel x communication dtype size)
  int layer = 0;          ///< index into StepModel::layers
};

/// A model as the step simulation needs it.
struct StepModel {
  std::vector<StepLayer> layers;  ///< forward order
  std::vector<GradTensor> grads;  ///< registration order; frozen parameters left out
};

/// PyTorch DDP bucketing knobs.
struct DdpOptions {
  Bytes first_bucket_bytes = 1_MiB;  ///< dist._DEFAULT_FIRST_BUCKET_BYTES
  Bytes bucket_cap = 25_MiB;         ///< bucket_cap_mb
};

/// Horovod tensor-fusion knobs. Defaults: horovod/common/operations.cc since v0.21
/// (128 MiB, 1 ms; the older docs still say 64 MB and 5 ms).
struct HorovodOptions {
  Bytes fusion_threshold = 128_MiB;  ///< HOROVOD_FUSION_THRESHOLD
  Seconds cycle_time{1e-3};          ///< HOROVOD_CYCLE_TIME
};

/// Time of one allreduce of the given number of bytes (supplied by the caller: a closed
/// form, the flow simulator or the NCCL predictor).
using AllreduceTime = std::function<Seconds(Bytes)>;

/// One allreduce of the step: a DDP bucket or a Horovod fused buffer. Times are measured
/// from the start of the backward pass.
struct BucketEvent {
  Bytes bytes{0};    ///< bytes on the wire
  int tensors = 0;   ///< gradient tensors in it
  Seconds ready{0};  ///< all its gradients ready (Horovod: the cycle that picked it up)
  Seconds start{0};
  Seconds end{0};
};

/// Result of one simulated step.
struct StepResult {
  Seconds forward{0};
  Seconds backward{0};      ///< compute only
  Seconds comm_busy{0};     ///< sum of allreduce durations
  Seconds exposed_comm{0};  ///< step - forward - backward
  Seconds step{0};
  std::vector<BucketEvent> buckets;  ///< in launch order
};

/// DDP's bucket assignment: `sizes` in gradient-ready order; returns, per bucket in launch
/// order, the positions (into `sizes`) of its tensors.
std::vector<std::vector<int>> ddp_bucket_assignment(std::span<const Bytes> sizes,
                                                    Bytes first_bucket_bytes, Bytes bucket_cap);

/// Positions of the model's gradients in the order they become ready (reverse layer order;
/// within a layer, reverse registration order).
std::vector<int> gradient_ready_order(const StepModel& model);

/// Simulates one step with DDP bucketing.
StepResult simulate_ddp_step(const StepModel& model, const DdpOptions& options,
                             const AllreduceTime& allreduce);

/// Simulates one step with Horovod tensor fusion.
StepResult simulate_horovod_step(const StepModel& model, const HorovodOptions& options,
                                 const AllreduceTime& allreduce);

}  // namespace topotune::sim
