#pragma once
// ReplicaMemory: whether one data-parallel replica's model states fit the GPU's memory.
// DDP keeps a whole replica on every GPU. With Adam, each trainable parameter costs 16 bytes
// in both fp32 and mixed-precision training:
//   - mixed precision, as ZeRO counts it (Rajbhandari et al., "ZeRO: Memory Optimizations
//     Toward Training Trillion Parameter Models", SC 2020, arXiv:1910.02054, section 3.1):
//     "an fp16 copy of the parameters and the gradients, with memory requirements of 2Ψ and
//     2Ψ bytes respectively ... the optimizer states: an fp32 copy of the parameters,
//     momentum and variance, with memory requirements of 4Ψ, 4Ψ, and 4Ψ bytes, respectively"
//     ("2Ψ + 2Ψ + KΨ = 16Ψ", K = 12). PyTorch AMP keeps the model in fp32 instead (the
//     torch.autocast docstring, pytorch.org/docs/stable/amp.html: "You should not call half()
//     or bfloat16() on your model(s) or inputs when using autocasting"), so fp32 parameters
//     and gradients (4 + 4) and Adam's two fp32 moments (4 + 4): also 16 bytes.
//   - fp32/tf32: parameters, gradients, momentum, variance, 4 bytes each: 16 bytes.
// A frozen parameter costs its 4 fp32 bytes only. Activations are counted where the profile
// states a transformer shape (its "transformer" object), as the sharded planner counts them
// (sharded_memory.h: 34·s·b·h per layer with flash attention, Korthikanti et al. 2022, plus
// 6·s·b·V of logits, no recomputation); other profiles' are not, and the estimate says so.
// "fits" is a lower bound on what the job needs: the CUDA context, NCCL's and DDP's buffers and
// allocator slack are not counted.

#include <cstdint>
#include <string>

#include "core/units.h"
#include "planning/model_profile.h"
#include "topology/instance_spec.h"

namespace topotune::tune {

/// Bytes per trainable parameter of Adam's model states (the header comment derives it).
inline constexpr std::int64_t kAdamBytesPerParam = 16;
/// Bytes per frozen parameter: its fp32 weight.
inline constexpr std::int64_t kFrozenBytesPerParam = 4;

/// The GPU memory plans check fits against: the catalog's figure, else the smallest of the
/// published figures it lists where they disagree (a row that fits it fits every one), else 0
/// (unknown: nothing is checked).
Bytes memory_to_check(const topo::GpuSpec& gpu);

/// Where memory_to_check took its figure from, for a plan's notes; "" when it is the
/// catalog's own figure or there is none.
std::string published_memory_words(const topo::GpuSpec& gpu);

/// One replica's model states against one GPU's memory.
struct ReplicaMemory {
  Bytes model_states{0};             ///< parameters, gradients and Adam states
  Bytes activations{0};              ///< the forward's, where the profile's shape gives them
  bool activations_counted = false;  ///< the profile states a transformer shape
  Bytes gpu_memory{0};  ///< the catalog's; 0 = unknown (then `fits` is true and unjudged)
  bool known = false;   ///< the GPU's memory is known
  bool fits = true;     ///< model_states + activations <= gpu_memory
  Bytes total() const { return Bytes(model_states.value + activations.value); }
};

/// The estimate for `model` at `batch_per_gpu` samples on a GPU with `gpu_memory` bytes
/// (0: unknown).
ReplicaMemory replica_memory(const ModelProfile& model, int batch_per_gpu, Bytes gpu_memory);

/// One sentence for the table and the advice: what was counted, and whether it fits.
std::string replica_memory_words(const ReplicaMemory& m);

}  // namespace topotune::tune
