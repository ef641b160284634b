#pragma once
// schedule's summary of a generated schedule: one row of typed cells (cli/reporter.h). The
// table reporter prints it as the labelled lines `topotune schedule` always printed (each
// column's fragment holds its label); the CSV reporter as one header and one row, sizes in
// bytes and the closed-form time in seconds. JSON is the schedule itself (docs/schedule.md).

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>

#include "algorithms/schedule/schedule.h"
#include "algorithms/schedule/schedule_stats.h"
#include "cli/output_format.h"
#include "core/units.h"

namespace topotune::cli {

/// What `topotune schedule` says of a schedule it generated.
struct ScheduleSummary {
  std::string algorithm;  ///< the schedule's own name, e.g. "ring(channels=1,chunks=1)"
  sched::CollectiveSpec spec;
  int hosts = 1;
  int gpus_per_host = 1;
  sched::ScheduleStats stats;
  int extra_endpoints = 0;              ///< CPU server endpoints besides the ranks
  std::optional<Seconds> closed_form;   ///< empty: the algorithm has none here
  std::string closed_form_unavailable;  ///< why, when empty
  std::string cluster;                  ///< what the closed form was computed on
  bool verified = false;                ///< proved by the symbolic interpreter
  std::size_t verify_limit = 0;         ///< largest schedule proved unless asked
};

/// Renders `summary` as `format` says (table or CSV).
void print_schedule_summary(const ScheduleSummary& summary, OutputFormat format, std::ostream& out);

}  // namespace topotune::cli
