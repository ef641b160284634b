#pragma once
// DeviceBuffer: an owning cudaMalloc allocation (RAII, move-only), the memory a Device-kind
// Transport and the CudaReducer operate on. Plus the copies between it and host memory.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>

#include "core/expected.h"
#include "runtime/transport.h"

namespace topotune::rt {

/// Device memory on the current CUDA device, freed on destruction. Empty when moved from.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// cudaMalloc of `bytes` (0 gives an empty buffer); the contents are uninitialised.
  static Expected<DeviceBuffer> allocate(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  BufferView view() { return {data_, size_}; }
  ConstBufferView view() const { return {data_, size_}; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Page-locked host memory (cudaMallocHost): the source or target of full-speed, asynchronous
/// host<->device copies. Freed on destruction; move-only.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  static Expected<PinnedBuffer> allocate(std::size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  std::byte* data() { return data_; }
  std::size_t size() const { return size_; }
  std::span<std::byte> span() { return {data_, size_}; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Copies host bytes into device memory, ordered on `stream`, and waits for the copy.
/// Sizes must match (Errc::InvalidArgument otherwise).
[[nodiscard]] Expected<void> copy_to_device(BufferView device, std::span<const std::byte> host,
                                            cudaStream_t stream);
/// Copies device memory into host bytes, ordered on `stream` (so after the work queued there,
/// e.g. NCCL receives and reductions), and waits for the copy.
[[nodiscard]] Expected<void> copy_to_host(std::span<std::byte> host, ConstBufferView device,
                                          cudaStream_t stream);

}  // namespace topotune::rt
