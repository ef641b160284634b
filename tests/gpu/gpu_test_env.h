#pragma once
// Shared by the GPU tests: whether a CUDA device is visible, and the skip that says why not.

#include <gtest/gtest.h>

#include <string>

namespace topotune::rt::testing {

/// Empty when a CUDA device is usable; otherwise why not (cudaGetDeviceCount's error or 0).
std::string no_gpu_reason();

}  // namespace topotune::rt::testing

/// Skips the current test, with the reason, when no CUDA device is visible.
#define TT_REQUIRE_GPU()                                                               \
  do {                                                                                 \
    const std::string tt_reason_ = ::topotune::rt::testing::no_gpu_reason();           \
    if (!tt_reason_.empty()) GTEST_SKIP() << "no CUDA device visible: " << tt_reason_; \
  } while (0)
