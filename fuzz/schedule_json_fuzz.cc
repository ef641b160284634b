// libFuzzer target: bytes -> the schedule JSON reader. An accepted schedule has passed
// validate(); writing it and reading it back must give the same number of transfers.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "algorithms/schedule/schedule_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sched = topotune::sched;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = sched::ScheduleJson::parse(text, "fuzz-schedule.json");
  if (!s) return 0;
  auto back = sched::ScheduleJson::parse(sched::schedule_to_json(*s), "fuzz-roundtrip");
  if (!back || back->transfers().size() != s->transfers().size()) __builtin_trap();
  return 0;
}
