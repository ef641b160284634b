#include "planning/replica_memory.h"

#include "core/string_printf.h"

namespace topotune::tune {

ReplicaMemory replica_memory(const ModelProfile& model, Bytes gpu_memory) {
  ReplicaMemory m;
  const std::int64_t trainable = model.trainable_params();
  const std::int64_t frozen = model.total_params() - trainable;
  m.model_states = Bytes(trainable * kAdamBytesPerParam + frozen * kFrozenBytesPerParam);
  m.gpu_memory = gpu_memory;
  m.known = gpu_memory.value > 0;
  m.fits = !m.known || m.model_states.value <= gpu_memory.value;
  return m;
}

std::string replica_memory_words(const ReplicaMemory& m) {
  const double gib = 1 << 30;
  const std::string states = string_printf(
      "one DDP replica's parameters, gradients and Adam states need %.1f GiB (16 bytes per "
      "trainable parameter; activations not counted: no profile records them)",
      m.model_states.as_double() / gib);
  if (!m.known) return states + "; the GPU's memory is unknown, so nothing was checked";
  if (m.fits) {
    return states + string_printf(", within the GPU's %.1f GiB", m.gpu_memory.as_double() / gib);
  }
  return states + string_printf(
                      ", more than the GPU's %.1f GiB: plain DDP does not fit (shard the "
                      "optimizer states, e.g. ZeRO/FSDP, which this plan does not model)",
                      m.gpu_memory.as_double() / gib);
}

}  // namespace topotune::tune
