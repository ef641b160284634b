#include "runtime/nccl/device_buffer.h"

#include <string>
#include <utility>

#include "runtime/nccl/cuda_check.h"

namespace topotune::rt {

Expected<DeviceBuffer> DeviceBuffer::allocate(std::size_t bytes) {
  DeviceBuffer b;
  if (bytes == 0) return b;
  void* p = nullptr;
  const cudaError_t rc = cudaMalloc(&p, bytes);
  if (rc != cudaSuccess) {
    return Unexpected(
        cuda_error(rc, "cudaMalloc")
            .context("allocating " + std::to_string(bytes) + " bytes of device memory"));
  }
  b.data_ = static_cast<std::byte*>(p);
  b.size_ = bytes;
  return b;
}

DeviceBuffer::~DeviceBuffer() {
  // A failure to free cannot be reported from a destructor; the process is then in trouble
  // anyway and the next CUDA call reports it.
  if (data_ != nullptr) (void)cudaFree(data_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) (void)cudaFree(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Expected<PinnedBuffer> PinnedBuffer::allocate(std::size_t bytes) {
  PinnedBuffer b;
  if (bytes == 0) return b;
  void* p = nullptr;
  const cudaError_t rc = cudaMallocHost(&p, bytes);
  if (rc != cudaSuccess) {
    return Unexpected(
        cuda_error(rc, "cudaMallocHost")
            .context("allocating " + std::to_string(bytes) + " bytes of pinned host memory"));
  }
  b.data_ = static_cast<std::byte*>(p);
  b.size_ = bytes;
  return b;
}

PinnedBuffer::~PinnedBuffer() {
  if (data_ != nullptr) (void)cudaFreeHost(data_);
}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) (void)cudaFreeHost(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Expected<void> copy_to_device(BufferView device, std::span<const std::byte> host,
                              cudaStream_t stream) {
  if (device.size != host.size()) {
    return fail(Errc::InvalidArgument, "copy_to_device: " + std::to_string(host.size()) +
                                           " host bytes into a device view of " +
                                           std::to_string(device.size));
  }
  if (device.size == 0) return {};
  TT_CUDA(cudaMemcpyAsync(device.data, host.data(), host.size(), cudaMemcpyHostToDevice, stream));
  TT_CUDA(cudaStreamSynchronize(stream));
  return {};
}

Expected<void> copy_to_host(std::span<std::byte> host, ConstBufferView device,
                            cudaStream_t stream) {
  if (device.size != host.size()) {
    return fail(Errc::InvalidArgument, "copy_to_host: a device view of " +
                                           std::to_string(device.size) + " bytes into " +
                                           std::to_string(host.size()) + " host bytes");
  }
  if (device.size == 0) return {};
  TT_CUDA(cudaMemcpyAsync(host.data(), device.data, host.size(), cudaMemcpyDeviceToHost, stream));
  TT_CUDA(cudaStreamSynchronize(stream));
  return {};
}

}  // namespace topotune::rt
