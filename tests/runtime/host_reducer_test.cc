#include "runtime/host_reducer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace topotune::rt {
namespace {

TEST(HalfConversion, EveryNonNanBitPatternRoundTrips) {
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const bool nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
    if (nan) {
      EXPECT_TRUE(std::isnan(half_to_float(static_cast<std::uint16_t>(h))));
      continue;
    }
    ASSERT_EQ(float_to_half(half_to_float(static_cast<std::uint16_t>(h))), h) << std::hex << h;
  }
}

TEST(HalfConversion, KnownValuesAndRoundToNearestEven) {
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0xc000), -2.0f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  // 1 + 2^-11 lies halfway between 1 (mantissa even) and 1 + 2^-10: ties to even -> 1.
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3*2^-11 lies halfway between 1+2^-10 (odd) and 1+2^-9 (even): -> 1+2^-9 = 0x3c02.
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // halfway to 2^16: ties to even = infinity
  EXPECT_EQ(float_to_half(65519.0f), 0x7bff);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // half the smallest subnormal: even
  EXPECT_EQ(float_to_half(std::ldexp(3.0f, -26)), 0x0001);  // 0.75 ulp rounds up
}

TEST(Bf16Conversion, EveryNonNanBitPatternRoundTripsAndRounds) {
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const bool nan = (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0;
    if (nan) continue;
    ASSERT_EQ(float_to_bf16(bf16_to_float(static_cast<std::uint16_t>(b))), b) << std::hex << b;
  }
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even -> 1.0 (0x3f80).
  EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::nanf("")))));
}

template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& v) {
  std::vector<std::byte> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(HostReducer, SumsEachDtype) {
  HostReducer r;
  // fp32, with an odd length (no vector-width assumption).
  std::vector<float> a = {1, 2, 3, 4, 5, 6, 7}, b = {10, 20, 30, 40, 50, 60, 70};
  auto da = bytes_of(a), db = bytes_of(b);
  ASSERT_TRUE(r.sum(BufferView{da.data(), da.size()}, ConstBufferView(db.data(), db.size()),
                    sched::DataType::F32));
  std::memcpy(a.data(), da.data(), da.size());
  EXPECT_EQ(a, (std::vector<float>{11, 22, 33, 44, 55, 66, 77}));
  // fp16: 1.5 + 2.25 = 3.75 exactly; bf16: 1 + 2^-8 rounds to even (1.0) after the sum of
  // 1 and 2^-8 in float (the single rounding happens when narrowing).
  std::vector<std::uint16_t> h1 = {float_to_half(1.5f)}, h2 = {float_to_half(2.25f)};
  auto dh1 = bytes_of(h1), dh2 = bytes_of(h2);
  ASSERT_TRUE(
      r.sum(BufferView{dh1.data(), 2}, ConstBufferView(dh2.data(), 2), sched::DataType::F16));
  std::memcpy(h1.data(), dh1.data(), 2);
  EXPECT_EQ(half_to_float(h1[0]), 3.75f);
  std::vector<std::uint16_t> b1 = {float_to_bf16(1.0f)}, b2 = {float_to_bf16(std::ldexp(1.0f, -8))};
  auto db1 = bytes_of(b1), db2 = bytes_of(b2);
  ASSERT_TRUE(
      r.sum(BufferView{db1.data(), 2}, ConstBufferView(db2.data(), 2), sched::DataType::BF16));
  std::memcpy(b1.data(), db1.data(), 2);
  EXPECT_EQ(bf16_to_float(b1[0]), 1.0f);
}

TEST(HostReducer, MismatchedSizesAreAnError) {
  HostReducer r;
  std::vector<std::byte> a(8), b(4);
  EXPECT_FALSE(r.sum(BufferView{a.data(), 8}, ConstBufferView(b.data(), 4), sched::DataType::F32));
  EXPECT_FALSE(r.sum(BufferView{a.data(), 3}, ConstBufferView(b.data(), 3), sched::DataType::F16));
}

}  // namespace
}  // namespace topotune::rt
