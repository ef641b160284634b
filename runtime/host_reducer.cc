#include "runtime/host_reducer.h"

#include <bit>
#include <cstring>
#include <string>

namespace topotune::rt {
namespace {

// The buffers are std::byte arrays that may not be aligned for float, so elements are read and
// written through memcpy (which compiles to plain loads/stores and keeps the loops vectorisable).
template <class Widen, class Narrow>
void sum_16bit(std::byte* dst, const std::byte* src, std::size_t n, Widen widen, Narrow narrow) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint16_t a;
    std::uint16_t b;
    std::memcpy(&a, dst + 2 * i, 2);
    std::memcpy(&b, src + 2 * i, 2);
    const std::uint16_t r = narrow(widen(a) + widen(b));
    std::memcpy(dst + 2 * i, &r, 2);
  }
}

void sum_f32(std::byte* dst, const std::byte* src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    float a;
    float b;
    std::memcpy(&a, dst + 4 * i, 4);
    std::memcpy(&b, src + 4 * i, 4);
    a += b;
    std::memcpy(dst + 4 * i, &a, 4);
  }
}

}  // namespace

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf or NaN (payload kept)
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);  // normal: rebias 15 -> 127
  } else if (mant == 0) {
    bits = sign;  // signed zero
  } else {
    // Subnormal half: value = mant * 2^-24; exactly representable as a normal float.
    const float v = static_cast<float>(mant) * 0x1p-24f;
    bits = sign | std::bit_cast<std::uint32_t>(v);
  }
  return std::bit_cast<float>(bits);
}

std::uint16_t float_to_half(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    return static_cast<std::uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {
    // Result is subnormal or zero: scale so that the float's rounding does the work.
    const float v = std::bit_cast<float>(abs) * 0x1p24f;  // units of 2^-24, exact scale
    const float r = v + 0x1p23f - 0x1p23f;                // round to nearest even integer
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(r));
  }
  // Normal: drop 13 mantissa bits with round-to-nearest-even, then rebias the exponent.
  const std::uint32_t round = 0xfffu + ((abs >> 13) & 1u);
  const std::uint32_t r = (abs + round) >> 13;
  return static_cast<std::uint16_t>(sign | (r - (112u << 10)));
}

float bf16_to_float(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

std::uint16_t float_to_bf16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  const std::uint32_t round = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>((x + round) >> 16);
}

Expected<void> HostReducer::sum(BufferView dst, ConstBufferView src, sched::DataType dtype) {
  const auto elem = static_cast<std::size_t>(sched::dtype_size(dtype));
  if (dst.size != src.size || dst.size % elem != 0) {
    return fail(Errc::Internal, "reduce of mismatched views (" + std::to_string(dst.size) +
                                    " and " + std::to_string(src.size) + " bytes, " +
                                    sched::dtype_name(dtype) + ")");
  }
  const std::size_t n = dst.size / elem;
  switch (dtype) {
    case sched::DataType::F32:
      sum_f32(dst.data, src.data, n);
      break;
    case sched::DataType::F16:
      sum_16bit(dst.data, src.data, n, half_to_float, float_to_half);
      break;
    case sched::DataType::BF16:
      sum_16bit(dst.data, src.data, n, bf16_to_float, float_to_bf16);
      break;
  }
  return {};
}

}  // namespace topotune::rt
