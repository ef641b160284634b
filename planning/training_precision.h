#pragma once
// TrainingPrecision: the arithmetic a training job computes in, which chooses the GPU peak its
// compute time is measured against (docs/planner.md). fp32 runs on the fp32 (non-tensor)
// units; tf32 on the TF32 tensor rate (Ampere and later, where the catalog has the figure);
// amp-fp16 and amp-bf16 (autocast: matmuls and convolutions in 16 bits, fp32 master weights)
// on the fp16/bf16 tensor rate. The default is what a job on that GPU most likely runs:
// amp-bf16 where the GPU computes bf16 natively, else amp-fp16 where it has tensor cores
// (Volta, Turing), else fp32.

#include <string>

#include "core/expected.h"
#include "topology/instance_spec.h"

namespace topotune::tune {

/// The arithmetic of the training step's compute (not of the gradients on the wire).
enum class TrainingPrecision { Fp32, Tf32, AmpFp16, AmpBf16 };

/// "fp32", "tf32", "amp-fp16", "amp-bf16".
const char* precision_name(TrainingPrecision p);
/// The inverse of precision_name; anything else is InvalidArgument naming the four.
Expected<TrainingPrecision> parse_precision(const std::string& name);

/// amp-bf16 where gpu.bf16_native, else amp-fp16 where it has a tensor peak, else fp32.
TrainingPrecision default_precision(const topo::GpuSpec& gpu);

/// True for the two autocast precisions (fp32 master weights beside 16-bit compute).
bool is_mixed_precision(TrainingPrecision p);

/// The dense peak FLOP/s `p` runs at on `gpu`. Errors (InvalidArgument, naming --peak-tflops):
/// bf16 on a GPU without native bf16, tf32 before Ampere, a peak the catalog marks unknown.
Expected<double> precision_peak_flops(const topo::GpuSpec& gpu, TrainingPrecision p);

}  // namespace topotune::tune
