#pragma once
// Integer fields of JSON inputs (model profiles, plan replays, measurements). nlohmann's
// get<int>() and get<std::int64_t>() convert whatever number or boolean they are given:
// `true` becomes 1, 1.5 becomes 1, 1e300 is undefined behaviour, 4294967304 read as an int
// becomes 8 and 2^31 becomes negative. A field read here must be a JSON integer (not a
// float, not a boolean) inside [lo, hi], checked before any conversion (docs/limits.md).
// A template over the JSON type, as core/checked_json.h, so that core/ stays free of
// third-party headers: profiles and measurements use nlohmann::json, replays ordered_json.

#include <cstdint>
#include <limits>
#include <string>

#include "core/expected.h"

namespace topotune {

/// The integer `v` if it is a JSON integer in [lo, hi]; otherwise a ParseError
/// "<key> must be an integer in [lo, hi], got <v as JSON>".
template <class Json>
Expected<std::int64_t> json_integer(const Json& v, const std::string& key, std::int64_t lo,
                                    std::int64_t hi) {
  constexpr auto kInt64Max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  bool is_int64 = false;
  std::int64_t value = 0;
  if (v.is_number_unsigned()) {
    const auto u = v.template get<std::uint64_t>();
    is_int64 = u <= kInt64Max;
    if (is_int64) value = static_cast<std::int64_t>(u);
  } else if (v.is_number_integer()) {
    is_int64 = true;
    value = v.template get<std::int64_t>();
  }
  if (!is_int64 || value < lo || value > hi) {
    return fail(Errc::ParseError, key + " must be an integer in [" + std::to_string(lo) + ", " +
                                      std::to_string(hi) + "], got " + v.dump());
  }
  return value;
}

/// The number `v` if it is a JSON number (not a boolean: get<double>() reads `true` as 1);
/// otherwise a ParseError "<key> must be a number, got <v>". Ranges are the caller's.
template <class Json>
Expected<double> json_number(const Json& v, const std::string& key) {
  if (!v.is_number()) return fail(Errc::ParseError, key + " must be a number, got " + v.dump());
  return v.template get<double>();
}

}  // namespace topotune
