// libFuzzer target: bytes -> a stored plan (`plan --replay FILE`). Only the reader: replaying
// runs the tuner, which is timed by the golden tests, not fuzzed. Lists past the limits,
// duplicate keys and non-finite figures must come back as Errors.

#include <cstddef>
#include <cstdint>
#include <string>

#include "planning/plan.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto stored = topotune::tune::read_plan_json(text, "fuzz-plan.json");
  if (stored) {
    // What the reader accepted is within the limits the command line has.
    if (!topotune::tune::check_plan_lists(stored->inputs) ||
        !topotune::tune::check_compute(stored->inputs.compute)) {
      __builtin_trap();
    }
  }
  return 0;
}
