#pragma once
// JSON texts nested `levels` deep, for the tests of the readers' depth limit.

#include <cstddef>
#include <string>

namespace topotune::test_support {

/// [[[...]]]: `levels` arrays.
inline std::string nested_arrays(int levels) {
  return std::string(static_cast<std::size_t>(levels), '[') +
         std::string(static_cast<std::size_t>(levels), ']');
}

/// {"a":{"a":...{"a":0}...}}: `levels` objects, the k-th opening brace at byte 5k - 4.
inline std::string nested_objects(int levels) {
  std::string text;
  for (int i = 0; i < levels; ++i) text += R"({"a":)";
  return text + "0" + std::string(static_cast<std::size_t>(levels), '}');
}

}  // namespace topotune::test_support
