#include "planning/replica_memory.h"

#include "core/string_printf.h"
#include "planning/sharded_memory.h"
#include "planning/sharded_plan.h"

namespace topotune::tune {

Bytes memory_to_check(const topo::GpuSpec& gpu) {
  if (gpu.memory.value > 0 || !gpu.memory_published) return gpu.memory;
  return Bytes(static_cast<std::int64_t>(gpu.memory_published->low));
}

std::string published_memory_words(const topo::GpuSpec& gpu) {
  if (gpu.memory.value > 0 || !gpu.memory_published) return "";
  const double gib = 1 << 30;
  return string_printf(
      "memory: the catalog has no memory figure for %s; published figures disagree (%.0f to "
      "%.0f GiB): what fits is checked against the smallest",
      gpu.model.c_str(), gpu.memory_published->low / gib, gpu.memory_published->high / gib);
}

ReplicaMemory replica_memory(const ModelProfile& model, int batch_per_gpu, Bytes gpu_memory) {
  ReplicaMemory m;
  const std::int64_t trainable = model.trainable_params();
  const std::int64_t frozen = model.total_params() - trainable;
  m.model_states = Bytes(trainable * kAdamBytesPerParam + frozen * kFrozenBytesPerParam);
  if (const Expected<TransformerShape> shape = transformer_shape(model); shape) {
    m.activations = activation_bytes(*shape, batch_per_gpu, /*recompute=*/false);
    m.activations_counted = true;
  }
  m.gpu_memory = gpu_memory;
  m.known = gpu_memory.value > 0;
  m.fits = !m.known || m.total().value <= gpu_memory.value;
  return m;
}

std::string replica_memory_words(const ReplicaMemory& m) {
  const double gib = 1 << 30;
  const std::string states =
      m.activations_counted
          ? string_printf(
                "one DDP replica needs %.1f GiB: %.1f GiB of parameters, gradients and Adam "
                "states (16 bytes per trainable parameter) and %.1f GiB of activations (the "
                "profile's transformer shape at this batch, flash attention, no recompute)",
                m.total().as_double() / gib, m.model_states.as_double() / gib,
                m.activations.as_double() / gib)
          : string_printf(
                "one DDP replica's parameters, gradients and Adam states need %.1f GiB (16 "
                "bytes per trainable parameter; activations not counted: the profile states no "
                "transformer shape)",
                m.model_states.as_double() / gib);
  if (!m.known) return states + "; the GPU's memory is unknown, so nothing was checked";
  if (m.fits) {
    return states + string_printf(", within the GPU's %.1f GiB", m.gpu_memory.as_double() / gib);
  }
  return states + string_printf(
                      ", more than the GPU's %.1f GiB: plain DDP does not fit (a smaller batch, "
                      "recomputation, or sharding: --framework fsdp plans FSDP2/HSDP/ZeRO)",
                      m.gpu_memory.as_double() / gib);
}

}  // namespace topotune::tune
