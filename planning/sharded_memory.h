#pragma once
// ShardedMemory: what one GPU holds during a sharded data-parallel step, and whether it fits.
//
// Model states, mixed-precision Adam (ZeRO paper: Rajbhandari et al. 2020, "ZeRO: Memory
// Optimizations Toward Training Trillion Parameter Models", Section 3.1: 2 bytes of fp16/bf16
// parameters + 2 of gradients + K = 12 of optimizer states (fp32 master copy, momentum,
// variance) = 16 bytes per parameter), each part divided by the ranks that shard it: DDP none,
// ZeRO-1 the optimizer states, ZeRO-2 also the gradients, ZeRO-3 / FSDP everything (FSDP2's
// fp32 sharded parameter and gradient are the master copy and gradient: 4 + 4 + 8 = the same
// 16 bytes). On top: the gathered bf16 units (FSDP: `prefetch` + 1 in flight; without
// reshard_after_forward every unit stays gathered from forward into backward), the reduction
// buffers (one unit's or bucket's unsharded gradients in the reduce dtype, two in flight when
// reductions overlap compute), DeepSpeed's all-gather bucket, and activations.
//
// Activations per transformer layer without recomputation (Korthikanti et al. 2022,
// "Reducing Activation Recomputation in Large Transformer Models", Eq. 1 with t = 1):
// s·b·h·(34 + 5·a·s/h) bytes. With flash attention (what FSDP/DeepSpeed LLM recipes run) the
// attention scores, softmax and its dropout mask are not stored: the 5·a·s²·b term drops and
// 34·s·b·h remains, which this model uses. It is derived for GPT's 4h MLP; Llama's SwiGLU MLP
// stores more, so this is a lower bound there. [derived] The output layer's logits, s·b·V in
// bf16 plus the fp32 copy the cross-entropy upcasts to: 6·s·b·V bytes. Not counted: the CUDA
// context, NCCL's buffers and allocator fragmentation (their sizes are not published per
// configuration): the headroom has to cover them.

#include <cstdint>

#include "core/units.h"

namespace topotune::tune {

/// The transformer shape activations depend on, from a profile's "transformer" object.
struct TransformerShape {
  int layers = 0;
  std::int64_t hidden = 0;
  int heads = 0;
  std::int64_t seq_len = 0;
  std::int64_t vocab = 0;
};

/// Which model states are sharded, and over how many ranks.
struct MemoryConfig {
  int state_ranks = 1;  ///< ranks sharing the optimizer states (ZeRO-1+)
  int grad_ranks = 1;   ///< ranks sharing the gradients (ZeRO-2+)
  int param_ranks = 1;  ///< ranks sharing the parameters (ZeRO-3, FSDP, HSDP: its group)
  std::int64_t gathered_params = 0;       ///< parameters gathered at once (units in flight)
  std::int64_t reduce_buffer_params = 0;  ///< unsharded gradients awaiting reduction
  int grad_bytes = 4;                     ///< reduce dtype
  std::int64_t gather_buffer_params = 0;  ///< DeepSpeed's all-gather bucket (ZeRO-1/2)
  int batch_per_gpu = 1;
  /// Full recomputation: each layer keeps only its bf16 input (2·s·b·h, Korthikanti et al.
  /// 2022 Table 2, "full recompute") and one layer's activations exist at a time.
  bool recompute = false;
};

/// Bytes per GPU, by kind.
struct MemoryBreakdown {
  Bytes params{0};     ///< bf16 parameters resident (sharded or not)
  Bytes grads{0};      ///< bf16 gradients resident
  Bytes optimizer{0};  ///< fp32 master + Adam moments
  Bytes gathered{0};   ///< unsharded units in flight
  Bytes buffers{0};    ///< reduction and gather buckets
  Bytes activations{0};
  Bytes total() const;
};

/// Per-layer activation bytes without recomputation, flash attention: 34·s·b·h.
std::int64_t activation_bytes_per_layer(const TransformerShape& t, int batch);

/// Activation bytes of one GPU's forward: every layer's (or, with `recompute`, each layer's
/// input and one layer's) plus the logits, 6·s·b·V.
Bytes activation_bytes(const TransformerShape& t, int batch, bool recompute);

/// The breakdown for `total_params` parameters in `config` with `shape`.
MemoryBreakdown sharded_memory(std::int64_t total_params, const TransformerShape& shape,
                               const MemoryConfig& config);

}  // namespace topotune::tune
