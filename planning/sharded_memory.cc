#include "planning/sharded_memory.h"

#include <algorithm>

namespace topotune::tune {
namespace {

// ZeRO paper, Section 3.1: 2 + 2 + K bytes per parameter, K = 12 for mixed-precision Adam.
constexpr std::int64_t kParamBytes = 2;
constexpr std::int64_t kGradBytes = 2;
constexpr std::int64_t kOptimizerBytes = 12;

std::int64_t ceil_div(std::int64_t a, int b) { return (a + b - 1) / std::max(1, b); }

}  // namespace

Bytes MemoryBreakdown::total() const {
  return Bytes(params.value + grads.value + optimizer.value + gathered.value + buffers.value +
               activations.value);
}

std::int64_t activation_bytes_per_layer(const TransformerShape& t, int batch) {
  return 34 * t.seq_len * batch * t.hidden;
}

MemoryBreakdown sharded_memory(std::int64_t total_params, const TransformerShape& shape,
                               const MemoryConfig& c) {
  MemoryBreakdown m;
  m.params = Bytes(kParamBytes * ceil_div(total_params, c.param_ranks));
  m.grads = Bytes(kGradBytes * ceil_div(total_params, c.grad_ranks));
  m.optimizer = Bytes(kOptimizerBytes * ceil_div(total_params, c.state_ranks));
  m.gathered = Bytes(kParamBytes * c.gathered_params);
  m.buffers = Bytes(c.grad_bytes * c.reduce_buffer_params + kParamBytes * c.gather_buffer_params);
  m.activations = activation_bytes(shape, c.batch_per_gpu, c.recompute);
  return m;
}

Bytes activation_bytes(const TransformerShape& t, int batch, bool recompute) {
  const std::int64_t logits = 6 * t.seq_len * batch * t.vocab;
  const std::int64_t layer = activation_bytes_per_layer(t, batch);
  const std::int64_t kept =
      recompute ? t.layers * 2 * t.seq_len * batch * t.hidden + layer : t.layers * layer;
  return Bytes(kept + logits);
}

}  // namespace topotune::tune
