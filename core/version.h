#pragma once
// The project version, also embedded in plans so that a replay can say what produced them.

namespace topotune {
inline constexpr const char* kVersion = "0.1.0";
}  // namespace topotune
