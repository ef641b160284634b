#pragma once
// TT_CUDA / TT_NCCL: turn a CUDA runtime or NCCL return code into an Error (Errc::Transport)
// carrying the library's own message, and return it from the enclosing function, whose result
// type must be an Expected<T>. A typed NCCLCHECK: nothing here prints, exits or throws.
//
//   TT_CUDA(cudaMalloc(&p, bytes));      // "cudaMalloc(&p, bytes): out of memory (...)"
//   TT_NCCL(ncclSend(buf, n, ncclUint8, peer, comm_, stream_));

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "core/error.h"
#include "core/expected.h"

namespace topotune::rt {

/// The Error for a failed CUDA runtime call: "<what>: <cudaGetErrorString> (<cudaGetErrorName>)".
Error cuda_error(cudaError_t code, const char* what);
/// The Error for a failed NCCL call: "<what>: <ncclGetErrorString>", plus NCCL's last detailed
/// message (ncclGetLastError) when it has one.
Error nccl_error(ncclResult_t code, const char* what);

}  // namespace topotune::rt

/// Evaluates a CUDA runtime call; on failure returns its Error from the enclosing function.
#define TT_CUDA(expr)                                                                \
  do {                                                                               \
    const cudaError_t tt_cuda_rc_ = (expr);                                          \
    if (tt_cuda_rc_ != cudaSuccess)                                                  \
      return ::topotune::Unexpected(::topotune::rt::cuda_error(tt_cuda_rc_, #expr)); \
  } while (0)

/// Evaluates an NCCL call; on failure returns its Error from the enclosing function.
#define TT_NCCL(expr)                                                                \
  do {                                                                               \
    const ncclResult_t tt_nccl_rc_ = (expr);                                         \
    if (tt_nccl_rc_ != ncclSuccess)                                                  \
      return ::topotune::Unexpected(::topotune::rt::nccl_error(tt_nccl_rc_, #expr)); \
  } while (0)
