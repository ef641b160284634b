#pragma once
// Physical quantities as strong types, stored in SI units.
//
// Bandwidth is bytes per second, per direction, everywhere inside topotune. "400 Gbps",
// "600 GB/s bidirectional" and "25 GB/s per link" are converted once, where data is read
// (see size_parse.h), never in model code. Mixing units is the classic bug of this domain:
// NCCL keeps GB/s as float, htsim bps as int, astra GB/s as double.

#include <compare>
#include <cstdint>
#include <optional>

#include "core/assert.h"

namespace topotune {

/// A byte count (sizes, offsets). Signed so that differences are safe to compute.
/// Arithmetic is checked: an overflow of 64 bits is a bug (TT_ASSERT), because every
/// input-derived size is bounded where it is read (kMaxBufferBytes, or checked_add/checked_mul
/// below, which turn an overflow into an Error).
struct Bytes {
  std::int64_t value = 0;
  constexpr Bytes() = default;
  constexpr explicit Bytes(std::int64_t v) : value(v) {}
  constexpr auto operator<=>(const Bytes&) const = default;
  constexpr Bytes operator+(Bytes o) const { return Bytes(add(value, o.value)); }
  constexpr Bytes operator-(Bytes o) const { return Bytes(sub(value, o.value)); }
  constexpr Bytes operator*(std::int64_t k) const { return Bytes(mul(value, k)); }
  constexpr Bytes operator/(std::int64_t k) const { return Bytes(value / k); }
  constexpr Bytes& operator+=(Bytes o) {
    value = add(value, o.value);
    return *this;
  }
  constexpr Bytes& operator-=(Bytes o) {
    value = sub(value, o.value);
    return *this;
  }
  constexpr double as_double() const { return static_cast<double>(value); }

 private:
  static constexpr std::int64_t add(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    TT_ASSERT(!__builtin_add_overflow(a, b, &r), "Bytes overflow: %lld + %lld",
              static_cast<long long>(a), static_cast<long long>(b));
    return r;
  }
  static constexpr std::int64_t sub(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    TT_ASSERT(!__builtin_sub_overflow(a, b, &r), "Bytes overflow: %lld - %lld",
              static_cast<long long>(a), static_cast<long long>(b));
    return r;
  }
  static constexpr std::int64_t mul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    TT_ASSERT(!__builtin_mul_overflow(a, b, &r), "Bytes overflow: %lld * %lld",
              static_cast<long long>(a), static_cast<long long>(b));
    return r;
  }
};

/// The largest collective buffer topotune accepts anywhere (1 TiB, far above any GPU's
/// memory): with at most 2^20 ranks, every byte total of a schedule (2^20 x 2 x 1 TiB = 2^61)
/// stays inside 64 bits. See docs/limits.md.
inline constexpr std::int64_t kMaxBufferBytes = std::int64_t{1} << 40;

/// a + b, or nullopt when the sum does not fit in 64 bits (for input-derived sums).
constexpr std::optional<Bytes> checked_add(Bytes a, Bytes b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a.value, b.value, &r)) return std::nullopt;
  return Bytes(r);
}
/// a * k, or nullopt when the product does not fit in 64 bits (for input-derived products).
constexpr std::optional<Bytes> checked_mul(Bytes a, std::int64_t k) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a.value, k, &r)) return std::nullopt;
  return Bytes(r);
}

/// A duration in seconds.
struct Seconds {
  double value = 0.0;
  constexpr Seconds() = default;
  constexpr explicit Seconds(double v) : value(v) {}
  constexpr auto operator<=>(const Seconds&) const = default;
  constexpr Seconds operator+(Seconds o) const { return Seconds(value + o.value); }
  constexpr Seconds operator-(Seconds o) const { return Seconds(value - o.value); }
  constexpr Seconds operator*(double k) const { return Seconds(value * k); }
  constexpr Seconds operator/(double k) const { return Seconds(value / k); }
  constexpr Seconds& operator+=(Seconds o) {
    value += o.value;
    return *this;
  }
  constexpr double us() const { return value * 1e6; }
};

/// A data rate in bytes per second, per direction.
struct BytesPerSec {
  double value = 0.0;
  constexpr BytesPerSec() = default;
  constexpr explicit BytesPerSec(double v) : value(v) {}
  constexpr auto operator<=>(const BytesPerSec&) const = default;
  constexpr BytesPerSec operator+(BytesPerSec o) const { return BytesPerSec(value + o.value); }
  constexpr BytesPerSec operator*(double k) const { return BytesPerSec(value * k); }
  constexpr BytesPerSec operator/(double k) const { return BytesPerSec(value / k); }
  /// GB/s with GB = 1e9 bytes, the unit nccl-tests prints.
  constexpr double gbps_bytes() const { return value / 1e9; }
};

/// Time to move `b` bytes at rate `r`.
constexpr Seconds operator/(Bytes b, BytesPerSec r) { return Seconds(b.as_double() / r.value); }
/// Rate achieved by moving `b` bytes in `t`.
constexpr BytesPerSec operator/(Bytes b, Seconds t) { return BytesPerSec(b.as_double() / t.value); }

constexpr Bytes operator""_B(unsigned long long v) { return Bytes(static_cast<std::int64_t>(v)); }
constexpr Bytes operator""_KiB(unsigned long long v) {
  return Bytes(static_cast<std::int64_t>(v) << 10);
}
constexpr Bytes operator""_MiB(unsigned long long v) {
  return Bytes(static_cast<std::int64_t>(v) << 20);
}
constexpr Bytes operator""_GiB(unsigned long long v) {
  return Bytes(static_cast<std::int64_t>(v) << 30);
}

/// Converters used only at the edges (data loading, CLI).
constexpr BytesPerSec gbit_per_sec(double gbps) { return BytesPerSec(gbps * 1e9 / 8.0); }
constexpr BytesPerSec gbyte_per_sec(double gBps) { return BytesPerSec(gBps * 1e9); }
constexpr Seconds microseconds(double us) { return Seconds(us * 1e-6); }

}  // namespace topotune
