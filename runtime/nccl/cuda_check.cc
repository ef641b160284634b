#include "runtime/nccl/cuda_check.h"

#include <string>

namespace topotune::rt {

Error cuda_error(cudaError_t code, const char* what) {
  // Clear the sticky "last error" so that the next, unrelated check does not report it again.
  (void)cudaGetLastError();
  return Error(Errc::Transport, std::string(what) + ": " + cudaGetErrorString(code) + " (" +
                                    cudaGetErrorName(code) + ")");
}

Error nccl_error(ncclResult_t code, const char* what) {
  std::string message = std::string(what) + ": " + ncclGetErrorString(code);
  // NCCL documents the communicator argument as unused: the last error is per process.
  const char* detail = ncclGetLastError(nullptr);
  if (detail != nullptr && detail[0] != '\0') message += std::string(" (") + detail + ")";
  return Error(Errc::Transport, std::move(message));
}

}  // namespace topotune::rt
