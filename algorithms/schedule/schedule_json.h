#pragma once
// Lossless JSON I/O of a Schedule (format "topotune.schedule/1", documented in docs/schedule.md),
// so that other tools can check or run a schedule and topotune can read one back.
//
//   {"schema": "topotune.schedule/1", "algorithm": "ring(channels=1,chunks=1)",
//    "spec": {"collective": "allreduce", "ranks": 4, "bytes": 1024, "dtype": "fp32",
//             "root": 0, "in_place": true},
//    "endpoints": [{"id": 4, "kind": "host_cpu", "host": 0, "executor": 0}],
//    "transfers": [{"id": 0, "src": 0, "dst": 1, "offset": 0, "bytes": 256, "reduce": true,
//                   "channel": 0, "deps": []}, ...]}
//
// `endpoints` lists only the extra endpoints (ids >= ranks, in order); ids 0..ranks-1 are the
// ranks. Writing then reading gives back an identical Schedule (same transfers, same order,
// same dependencies). Reading validates the structure (validate.h) but does not run verify().

#include <iosfwd>
#include <string>
#include <string_view>

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"

namespace topotune::sched {

/// The JSON adapter; a friend of Schedule so that it can fill a Schedule read from text.
class ScheduleJson {
 public:
  /// Writes `s` as JSON, one transfer per line (streams: schedules can have millions).
  static void write(const Schedule& s, std::ostream& out);
  /// Parses a schedule. `origin` (a file name) prefixes error messages. Errors: ParseError for
  /// malformed JSON or missing/mistyped fields (with the JSON path), InvalidSchedule for a
  /// schedule that fails validate().
  static Expected<Schedule> parse(std::string_view text, const std::string& origin);
};

/// The whole JSON text of `s` (see ScheduleJson::write).
std::string schedule_to_json(const Schedule& s);

/// Same as ScheduleJson::parse.
Expected<Schedule> parse_schedule_json(std::string_view text,
                                       const std::string& origin = "schedule");

}  // namespace topotune::sched
