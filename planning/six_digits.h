#pragma once
// Plan JSON figures at six significant digits: enough for a plan, and immune to last-bit
// differences between builds, so that a replayed plan compares equal to the stored one.

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace topotune::tune {

/// x rounded to six significant digits (non-finite values and zero unchanged).
inline double six_digits(double x) {
  if (!std::isfinite(x) || x == 0) return x;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return std::strtod(buf, nullptr);
}

}  // namespace topotune::tune
