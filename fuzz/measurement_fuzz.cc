// libFuzzer target: bytes -> a measurement file (`validate/calibrate --measured FILE`). An
// accepted file must be within the documented ranges and survive the JSON round trip.

#include <cstddef>
#include <cstdint>
#include <string>

#include "measurement/measurement.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace rt = topotune::rt;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto m = rt::measurement_from_json(text, "fuzz-measurement.json");
  if (!m) return 0;
  for (const rt::MeasurementRow& r : m->rows) {
    if (!rt::check_measurement_row(r)) __builtin_trap();
  }
  auto back = rt::measurement_from_json(rt::to_json(*m), "fuzz-roundtrip");
  if (!back || back->rows.size() != m->rows.size()) __builtin_trap();
  return 0;
}
