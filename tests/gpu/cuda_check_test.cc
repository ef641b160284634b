// Tests that need no GPU: error conversion, the reducer's argument checks, the host element
// codec the device checks rely on. They run (and must pass) on CPU-only CI machines too.

#include "runtime/nccl/cuda_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "runtime/nccl/cuda_reducer.h"
#include "runtime/nccl/element_codec.h"

namespace topotune::rt {
namespace {

using sched::DataType;

Expected<int> fails_with_cuda(cudaError_t code) {
  TT_CUDA(code);
  return 7;
}

Expected<int> fails_with_nccl(ncclResult_t code) {
  TT_NCCL(code);
  return 7;
}

TEST(CudaCheck, CudaErrorCarriesLibraryMessageAndExpression) {
  Expected<int> r = fails_with_cuda(cudaErrorMemoryAllocation);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, Errc::Transport);
  EXPECT_NE(r.error().message.find("code"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(cudaGetErrorString(cudaErrorMemoryAllocation)),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("cudaErrorMemoryAllocation"), std::string::npos);
}

TEST(CudaCheck, SuccessPassesThrough) {
  EXPECT_EQ(*fails_with_cuda(cudaSuccess), 7);
  EXPECT_EQ(*fails_with_nccl(ncclSuccess), 7);
}

TEST(CudaCheck, NcclErrorCarriesLibraryMessage) {
  Expected<int> r = fails_with_nccl(ncclInvalidArgument);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, Errc::Transport);
  EXPECT_NE(r.error().message.find(ncclGetErrorString(ncclInvalidArgument)), std::string::npos)
      << r.error().message;
}

BufferView view_at(std::vector<std::byte>& v, std::size_t off, std::size_t n) {
  return {v.data() + off, n};
}

TEST(CudaReducerArguments, RejectsBadViewsBeforeAnyCudaCall) {
  std::vector<std::byte> mem(64);
  EXPECT_EQ(
      check_sum_arguments(view_at(mem, 0, 8), view_at(mem, 32, 12), DataType::F32).error().code,
      Errc::InvalidArgument);  // sizes differ
  EXPECT_EQ(
      check_sum_arguments(view_at(mem, 0, 6), view_at(mem, 32, 6), DataType::F32).error().code,
      Errc::InvalidArgument);  // 6 bytes is not a whole number of floats
  EXPECT_EQ(
      check_sum_arguments(view_at(mem, 0, 16), view_at(mem, 8, 16), DataType::F32).error().code,
      Errc::InvalidArgument);  // [0,16) and [8,24) overlap
  EXPECT_EQ(
      check_sum_arguments(view_at(mem, 1, 4), view_at(mem, 33, 4), DataType::F16).error().code,
      Errc::InvalidArgument);  // odd address for a 2-byte element
  EXPECT_TRUE(check_sum_arguments(view_at(mem, 0, 16), view_at(mem, 16, 16), DataType::F32)
                  .has_value());  // adjacent, not overlapping
  EXPECT_TRUE(check_sum_arguments(BufferView{}, ConstBufferView{}, DataType::BF16).has_value());
}

TEST(CudaReducerArguments, SumReportsArgumentErrorsWithoutTouchingTheDevice) {
  CudaReducer reducer(nullptr);
  std::vector<std::byte> mem(64);
  Expected<void> r = reducer.sum(view_at(mem, 0, 8), view_at(mem, 16, 4), DataType::F32);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, Errc::InvalidArgument);
}

TEST(ElementCodec, RoundTripsExactValues) {
  const std::vector<float> values = {0.0f, 1.0f, -2.5f, 0.125f, 96.0f, -1024.0f};
  for (DataType t : {DataType::F32, DataType::F16, DataType::BF16}) {
    const std::vector<std::byte> bytes = encode_elements(values, t);
    EXPECT_EQ(bytes.size(), values.size() * static_cast<std::size_t>(sched::dtype_size(t)));
    EXPECT_EQ(decode_elements(bytes, t), values) << sched::dtype_name(t);
  }
}

TEST(ElementCodec, RoundsToNearestEvenLikeTheDevice) {
  // fp16 has 11 significant bits: 2049 lies halfway between 2048 and 2050 and rounds to the
  // even significand, 2048; 2051 lies between 2050 and 2052 and rounds to 2052.
  EXPECT_EQ(add_rounded(2048.0f, 1.0f, DataType::F16), 2048.0f);
  EXPECT_EQ(add_rounded(2050.0f, 1.0f, DataType::F16), 2052.0f);
  // bf16 has 8 significant bits: 257 = 256 + 1 is halfway between 256 and 258 and goes to
  // 256; 259 goes to 260.
  EXPECT_EQ(add_rounded(256.0f, 1.0f, DataType::BF16), 256.0f);
  EXPECT_EQ(add_rounded(258.0f, 1.0f, DataType::BF16), 260.0f);
  EXPECT_EQ(add_rounded(256.0f, 1.0f, DataType::F32), 257.0f);
  // fp16's largest finite value is 65504; 65504 + 32 rounds up to infinity.
  EXPECT_TRUE(std::isinf(add_rounded(65504.0f, 32.0f, DataType::F16)));
}

}  // namespace
}  // namespace topotune::rt
