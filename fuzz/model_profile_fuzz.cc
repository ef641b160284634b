// libFuzzer target: bytes -> the model profile parser (`plan --model FILE`). Bad input must
// come back as an Error; array and size limits (docs/limits.md) keep every run small.

#include <cstddef>
#include <cstdint>
#include <string>

#include "planning/model_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)topotune::tune::parse_model_profile(text, "fuzz-model.json");
  return 0;
}
