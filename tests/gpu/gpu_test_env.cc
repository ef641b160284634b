#include "tests/gpu/gpu_test_env.h"

#include <cuda_runtime_api.h>

namespace topotune::rt::testing {

std::string no_gpu_reason() {
  // Computed once: cudaGetDeviceCount initialises the runtime, which is slow without a driver.
  static const std::string reason = [] {
    int count = 0;
    const cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
      (void)cudaGetLastError();
      return std::string("cudaGetDeviceCount: ") + cudaGetErrorString(rc);
    }
    if (count == 0) return std::string("cudaGetDeviceCount returned 0 devices");
    return std::string();
  }();
  return reason;
}

}  // namespace topotune::rt::testing
