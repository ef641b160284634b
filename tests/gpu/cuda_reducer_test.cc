// CudaReducer against a host reference: every element type, sizes around the 16-byte pack
// and the unroll factor, and views whose alignment forces the head/tail and all-scalar paths.

#include "runtime/nccl/cuda_reducer.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/nccl/cuda_check.h"
#include "runtime/nccl/device_buffer.h"
#include "runtime/nccl/element_codec.h"
#include "tests/gpu/gpu_test_env.h"

namespace topotune::rt {
namespace {

using sched::DataType;

// Deterministic pseudo-random multiples of 1/16 in [-4, 4): their sums (|x| <= 8, at most 8
// significant bits) are exact in fp16 and bf16, so the reference is exact for any rounding.
std::vector<float> pattern(std::size_t n, std::uint32_t seed) {
  std::vector<float> v(n);
  std::uint32_t x = seed * 2654435761u + 1;
  for (float& f : v) {
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>(static_cast<int>((x >> 16) % 128) - 64) / 16.0f;
  }
  return v;
}

struct Case {
  DataType dtype;
  std::size_t elements;
  std::size_t dst_offset;  // elements into the allocation
  std::size_t src_offset;
};

void run_case(const Case& c) {
  const std::size_t elem = static_cast<std::size_t>(sched::dtype_size(c.dtype));
  const std::size_t pad = 16;  // room for the offsets
  const std::vector<float> dst_in = pattern(c.elements, 1);
  const std::vector<float> src_in = pattern(c.elements, 2);
  auto dst_dev = DeviceBuffer::allocate((c.elements + pad) * elem);
  auto src_dev = DeviceBuffer::allocate((c.elements + pad) * elem);
  ASSERT_TRUE(dst_dev && src_dev);
  BufferView dst{dst_dev->data() + c.dst_offset * elem, c.elements * elem};
  BufferView src{src_dev->data() + c.src_offset * elem, c.elements * elem};
  ASSERT_TRUE(copy_to_device(dst, encode_elements(dst_in, c.dtype), nullptr));
  ASSERT_TRUE(copy_to_device(src, encode_elements(src_in, c.dtype), nullptr));

  CudaReducer reducer(nullptr);
  Expected<void> r = reducer.sum(dst, src, c.dtype);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_TRUE(reducer.synchronize());

  std::vector<std::byte> out(dst.size);
  ASSERT_TRUE(copy_to_host(out, dst, nullptr));
  const std::vector<float> got = decode_elements(out, c.dtype);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < c.elements; ++i) {
    if (got[i] != add_rounded(dst_in[i], src_in[i], c.dtype)) ++wrong;
  }
  EXPECT_EQ(wrong, 0u) << sched::dtype_name(c.dtype) << " n=" << c.elements
                       << " dst_offset=" << c.dst_offset << " src_offset=" << c.src_offset;
}

TEST(CudaReducer, MatchesHostReferenceForEveryTypeSizeAndAlignment) {
  TT_REQUIRE_GPU();
  // 16-byte packs hold 4 fp32 or 8 fp16/bf16; a thread does 4 packs a round; one grid round
  // of 8 blocks/SM x 256 threads is ~1M packs on an H100, so 3M+ elements take several rounds.
  const std::vector<std::size_t> sizes = {0, 1, 3, 7, 8, 9, 31, 33, 1000, 4099, 3u << 20};
  for (DataType t : {DataType::F32, DataType::F16, DataType::BF16}) {
    for (std::size_t n : sizes) {
      run_case({t, n, 0, 0});  // both 256-byte aligned: vector body plus tail
      run_case({t, n, 1, 1});  // same misalignment: scalar head, vectors, tail
      run_case({t, n, 1, 2});  // different misalignment: all element by element
    }
  }
}

TEST(CudaReducer, SmallGridStillCoversEverything) {
  TT_REQUIRE_GPU();
  // One block of 256 threads: the grid-stride loops must go round many times.
  const std::size_t n = 100003;
  const std::vector<float> a = pattern(n, 3);
  const std::vector<float> b = pattern(n, 4);
  auto da = DeviceBuffer::allocate(n * sizeof(float));
  auto db = DeviceBuffer::allocate(n * sizeof(float));
  ASSERT_TRUE(da && db);
  ASSERT_TRUE(copy_to_device(da->view(), encode_elements(a, DataType::F32), nullptr));
  ASSERT_TRUE(copy_to_device(db->view(), encode_elements(b, DataType::F32), nullptr));
  CudaReducer reducer(nullptr, /*max_blocks=*/1);
  ASSERT_TRUE(reducer.sum(da->view(), db->view(), DataType::F32));
  ASSERT_TRUE(reducer.synchronize());
  std::vector<std::byte> out(n * sizeof(float));
  ASSERT_TRUE(copy_to_host(out, da->view(), nullptr));
  const std::vector<float> got = decode_elements(out, DataType::F32);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], a[i] + b[i]) << "element " << i;
}

TEST(CudaReducer, CopyMovesDeviceBytesOnTheStream) {
  TT_REQUIRE_GPU();
  std::vector<std::byte> in(4099);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::byte>(i * 7);
  auto a = DeviceBuffer::allocate(in.size());
  auto b = DeviceBuffer::allocate(in.size());
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(copy_to_device(a->view(), in, nullptr));
  CudaReducer reducer(nullptr);
  EXPECT_EQ(reducer.copy(b->view(), BufferView{a->data(), 16}).error().code, Errc::InvalidArgument);
  ASSERT_TRUE(reducer.copy(b->view(), a->view()));
  std::vector<std::byte> out(in.size());
  ASSERT_TRUE(copy_to_host(out, b->view(), nullptr));
  EXPECT_EQ(out, in);
}

}  // namespace
}  // namespace topotune::rt
