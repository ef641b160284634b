// libFuzzer target: the nccl-tests log parser must return a Measurement or an Error for any
// input, never crash, hang or read out of bounds. A parsed result must also survive the
// measurement JSON round trip.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "measurement/measurement.h"
#include "measurement/nccl_tests_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  topotune::rt::NcclTestsParseOptions opt;
  opt.origin = "fuzz";
  auto m = topotune::rt::parse_nccl_tests(text, opt);
  if (m) {
    auto back = topotune::rt::measurement_from_json(topotune::rt::to_json(*m), "fuzz");
    if (!back || back->rows.size() != m->rows.size()) __builtin_trap();
  }
  return 0;
}
