#pragma once
// CudaReducer: the Reducer for device memory. dst += src element-wise (fp32, fp16, bf16) by a
// CUDA kernel launched on a given stream, normally the NcclTransport's, so that the sum is
// ordered after the receive that produced `src` and before the sends that read `dst` without
// any host synchronisation.
//
// The kernel is memory-bound (2 loads and 1 store per element): it loads 16 bytes per thread
// (a float4, 8 halves as 4 __half2, 8 bf16 as 4 __nv_bfloat162), keeps 4 such loads in flight
// per thread in a grid-stride loop, and does the unaligned head and the tail element by
// element; the grid is as many blocks as fit on the device at once. Vectorised loads need dst
// and src to share their alignment modulo 16 bytes; when they do not, the whole range goes
// element by element (correct, slower). fp16 and bf16 sums are rounded to the element type
// after each addition, as NCCL's own reductions are.

#include <cuda_runtime_api.h>

#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "runtime/transport.h"

namespace topotune::rt {

class CudaReducer final : public Reducer {
 public:
  /// Launches on `stream` (nullptr = the legacy default stream) of the current device.
  /// `max_blocks` caps the grid (0: no cap beyond the blocks resident at once on the device,
  /// from the occupancy calculator on first use of each element type).
  explicit CudaReducer(cudaStream_t stream, int max_blocks = 0)
      : stream_(stream), max_blocks_(max_blocks) {}

  /// dst[i] += src[i]. Both views are device memory of equal size, a multiple of the element
  /// size, element-aligned and not overlapping (Errc::InvalidArgument otherwise; checked
  /// before any CUDA call). Asynchronous: returns once the kernel is queued on the stream;
  /// call synchronize() (or wait on a later event of the stream) before reading dst on the host.
  [[nodiscard]] Expected<void> sum(BufferView dst, ConstBufferView src,
                                   sched::DataType dtype) override;

  /// dst = src for device views of equal size, queued on the stream (cudaMemcpyAsync): the
  /// executor's local copy for device buffers, ordered like sum().
  [[nodiscard]] Expected<void> copy(BufferView dst, ConstBufferView src);

  /// Waits for everything queued on the stream, including the reductions.
  [[nodiscard]] Expected<void> synchronize();

  cudaStream_t stream() const { return stream_; }

 private:
  cudaStream_t stream_;
  int max_blocks_;
  int blocks_[3] = {0, 0, 0};  // grid size per sched::DataType, 0 until first use
};

/// Checks the arguments of CudaReducer::sum (sizes, alignment, overlap) without touching CUDA.
[[nodiscard]] Expected<void> check_sum_arguments(BufferView dst, ConstBufferView src,
                                                 sched::DataType dtype);

}  // namespace topotune::rt
