// CUDA kernels behind CudaReducer (see cuda_reducer.h for the design).

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/nccl/cuda_check.h"
#include "runtime/nccl/cuda_reducer.h"

namespace topotune::rt {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // independent 16-byte loads in flight per thread and operand

template <class To, class From>
__device__ __forceinline__ To bits_as(const From& from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}

// Element-wise and 16-byte-pack addition for each element type.
template <class T>
struct Add;

template <>
struct Add<float> {
  __device__ __forceinline__ static float one(float a, float b) { return a + b; }
  __device__ __forceinline__ static uint4 pack(uint4 a, uint4 b) {
    return make_uint4(__float_as_uint(__uint_as_float(a.x) + __uint_as_float(b.x)),
                      __float_as_uint(__uint_as_float(a.y) + __uint_as_float(b.y)),
                      __float_as_uint(__uint_as_float(a.z) + __uint_as_float(b.z)),
                      __float_as_uint(__uint_as_float(a.w) + __uint_as_float(b.w)));
  }
};

// Two-element types (__half2, __nv_bfloat162) packed four to a uint4.
template <class T, class T2>
struct AddPairs {
  __device__ __forceinline__ static T one(T a, T b) { return __hadd(a, b); }
  __device__ __forceinline__ static unsigned word(unsigned a, unsigned b) {
    return bits_as<unsigned>(__hadd2(bits_as<T2>(a), bits_as<T2>(b)));
  }
  __device__ __forceinline__ static uint4 pack(uint4 a, uint4 b) {
    return make_uint4(word(a.x, b.x), word(a.y, b.y), word(a.z, b.z), word(a.w, b.w));
  }
};
template <>
struct Add<__half> : AddPairs<__half, __half2> {};
template <>
struct Add<__nv_bfloat16> : AddPairs<__nv_bfloat16, __nv_bfloat162> {};

// Elements [0, head) and [head + 16/sizeof(T) * nvec, n) one by one; the packs in between as
// uint4, grid-stride, kUnroll packs per thread per round with all loads issued before the adds.
template <class T>
__global__ void sum_kernel(T* __restrict__ dst, const T* __restrict__ src, std::size_t n,
                           std::size_t head, std::size_t nvec) {
  constexpr std::size_t kPerPack = 16 / sizeof(T);
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  uint4* d = reinterpret_cast<uint4*>(dst + head);
  const uint4* s = reinterpret_cast<const uint4*>(src + head);
  std::size_t i = tid;
  for (; i + (kUnroll - 1) * stride < nvec; i += kUnroll * stride) {
    uint4 a[kUnroll];
    uint4 b[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      a[u] = d[i + u * stride];
      b[u] = __ldg(s + i + u * stride);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) d[i + u * stride] = Add<T>::pack(a[u], b[u]);
  }
  for (; i < nvec; i += stride) d[i] = Add<T>::pack(d[i], __ldg(s + i));
  const std::size_t tail_begin = head + nvec * kPerPack;
  const std::size_t scalars = head + (n - tail_begin);
  for (std::size_t j = tid; j < scalars; j += stride) {
    const std::size_t e = j < head ? j : tail_begin + (j - head);
    dst[e] = Add<T>::one(dst[e], src[e]);
  }
}

struct Split {
  std::size_t head = 0;  // leading elements done one by one (until dst is 16-byte aligned)
  std::size_t nvec = 0;  // 16-byte packs
};

Split split_for_vectors(const void* dst, const void* src, std::size_t n, std::size_t elem) {
  const auto d = reinterpret_cast<std::uintptr_t>(dst);
  const auto s = reinterpret_cast<std::uintptr_t>(src);
  if ((d - s) % 16 != 0) return Split{n, 0};  // never both aligned: all element-wise
  const std::size_t head = std::min(n, ((16 - d % 16) % 16) / elem);
  return Split{head, (n - head) * elem / 16};
}

// As many blocks as are resident at once on the whole device, and no more: a grid-stride loop
// spreads the work evenly over the blocks, so a second, partial wave of blocks would leave
// most multiprocessors idle at the end.
template <class T>
cudaError_t resident_blocks(int* blocks) {
  int device = 0;
  int sms = 0;
  int per_sm = 0;
  cudaError_t rc = cudaGetDevice(&device);
  if (rc == cudaSuccess) rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (rc == cudaSuccess) {
    rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_kernel<T>, kThreads, 0);
  }
  *blocks = std::max(1, sms * per_sm);
  return rc;
}

template <class T>
cudaError_t launch(void* dst, const void* src, std::size_t n, int max_blocks, cudaStream_t stream) {
  const Split split = split_for_vectors(dst, src, n, sizeof(T));
  const std::size_t scalars = n - split.nvec * (16 / sizeof(T));
  const std::size_t work = std::max((split.nvec + kUnroll - 1) / kUnroll, scalars);
  const std::size_t wanted = (work + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(std::clamp<std::size_t>(wanted, 1, max_blocks));
  sum_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<T*>(dst), static_cast<const T*>(src),
                                                 n, split.head, split.nvec);
  return cudaGetLastError();
}

}  // namespace

Expected<void> check_sum_arguments(BufferView dst, ConstBufferView src, sched::DataType dtype) {
  const std::size_t elem = static_cast<std::size_t>(sched::dtype_size(dtype));
  if (dst.size != src.size) {
    return fail(Errc::InvalidArgument, "reduction of views of different sizes (" +
                                           std::to_string(dst.size) + " and " +
                                           std::to_string(src.size) + " bytes)");
  }
  if (dst.size % elem != 0) {
    return fail(Errc::InvalidArgument, "reduction of " + std::to_string(dst.size) +
                                           " bytes, not a multiple of the " +
                                           sched::dtype_name(dtype) + " element size");
  }
  if (dst.size == 0) return {};
  if (dst.data == nullptr || src.data == nullptr) {
    return fail(Errc::InvalidArgument, "reduction with a null view");
  }
  const auto d = reinterpret_cast<std::uintptr_t>(dst.data);
  const auto s = reinterpret_cast<std::uintptr_t>(src.data);
  if (d % elem != 0 || s % elem != 0) {
    return fail(Errc::InvalidArgument, "reduction of views not aligned to the element size");
  }
  if (d < s + src.size && s < d + dst.size) {
    return fail(Errc::InvalidArgument, "reduction of overlapping views");
  }
  return {};
}

Expected<void> CudaReducer::sum(BufferView dst, ConstBufferView src, sched::DataType dtype) {
  TT_TRY_VOID(check_sum_arguments(dst, src, dtype));
  if (dst.size == 0) return {};
  const int type = static_cast<int>(dtype);
  if (blocks_[type] == 0) {
    int resident = 0;
    switch (dtype) {
      case sched::DataType::F32:
        TT_CUDA(resident_blocks<float>(&resident));
        break;
      case sched::DataType::F16:
        TT_CUDA(resident_blocks<__half>(&resident));
        break;
      case sched::DataType::BF16:
        TT_CUDA(resident_blocks<__nv_bfloat16>(&resident));
        break;
    }
    blocks_[type] = max_blocks_ > 0 ? std::min(max_blocks_, resident) : resident;
  }
  const std::size_t n = dst.size / static_cast<std::size_t>(sched::dtype_size(dtype));
  switch (dtype) {
    case sched::DataType::F32:
      TT_CUDA(launch<float>(dst.data, src.data, n, blocks_[type], stream_));
      break;
    case sched::DataType::F16:
      TT_CUDA(launch<__half>(dst.data, src.data, n, blocks_[type], stream_));
      break;
    case sched::DataType::BF16:
      TT_CUDA(launch<__nv_bfloat16>(dst.data, src.data, n, blocks_[type], stream_));
      break;
  }
  return {};
}

Expected<void> CudaReducer::copy(BufferView dst, ConstBufferView src) {
  if (dst.size != src.size) {
    return fail(Errc::InvalidArgument, "copy between views of different sizes (" +
                                           std::to_string(dst.size) + " and " +
                                           std::to_string(src.size) + " bytes)");
  }
  if (dst.size == 0 || dst.data == src.data) return {};
  TT_CUDA(cudaMemcpyAsync(dst.data, src.data, dst.size, cudaMemcpyDeviceToDevice, stream_));
  return {};
}

Expected<void> CudaReducer::synchronize() {
  TT_CUDA(cudaStreamSynchronize(stream_));
  return {};
}

}  // namespace topotune::rt
