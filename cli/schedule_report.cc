#include "cli/schedule_report.h"

#include <memory>
#include <vector>

#include "cli/reporter.h"
#include "core/quantity_parse.h"
#include "core/string_printf.h"

namespace topotune::cli {
namespace {

// A line's label, padded to the column where the values start.
std::string label(const char* name) { return string_printf("%-22s ", name); }

// The table prints one line per figure: each column's fragment carries the label and the
// line breaks; sizes, the closed form and the verification are table-only text beside their
// CSV-only numbers.
std::vector<Column> schedule_columns() {
  return {{"algorithm", label("algorithm") + "%s\n"},
          {"collective", label("collective") + "%s"},
          {"size", " of %s", false},
          {"bytes", ""},
          {"dtype", " %s"},
          {"ranks", " on %lld ranks"},
          {"hosts", " (%lld hosts"},
          {"gpus_per_host", " x %lld GPUs)\n"},
          {"steps", label("steps (DAG depth)") + "%lld\n"},
          {"transfers", label("transfers") + "%lld\n"},
          {"min_sent", label("bytes sent per rank") + "min %s", false},
          {"max_sent", "  max %s\n", false},
          {"min_sent_bytes", ""},
          {"max_sent_bytes", ""},
          {"extra_endpoints_line", "%s", false},
          {"extra_endpoints", ""},
          {"closed_form_time", label("closed-form time") + "%s\n", false},
          {"closed_form_s", ""},
          {"cluster", ""},
          {"verification", label("verified") + "%s", false},
          {"verified", ""}};
}

std::vector<Cell> schedule_cells(const ScheduleSummary& s) {
  const std::string closed = s.closed_form ? format_duration(*s.closed_form) + " on " + s.cluster
                                           : "n/a (" + s.closed_form_unavailable + ")";
  const std::string extra =
      s.extra_endpoints > 0
          ? label("extra endpoints") + std::to_string(s.extra_endpoints) + " CPU server endpoints\n"
          : "";
  const std::string verification = s.verified ? "end state proved by the symbolic interpreter"
                                              : "not checked (more than " +
                                                    std::to_string(s.verify_limit) +
                                                    " transfers; --verify to prove it)";
  return {s.algorithm,
          std::string(sched::collective_name(s.spec.collective)),
          format_size(s.spec.bytes),
          s.spec.bytes.value,
          std::string(sched::dtype_name(s.spec.dtype)),
          std::int64_t{s.spec.ranks},
          std::int64_t{s.hosts},
          std::int64_t{s.gpus_per_host},
          std::int64_t{s.stats.steps},
          static_cast<std::int64_t>(s.stats.transfers),
          format_size(s.stats.min_sent_per_rank),
          format_size(s.stats.max_sent_per_rank),
          s.stats.min_sent_per_rank.value,
          s.stats.max_sent_per_rank.value,
          extra,
          std::int64_t{s.extra_endpoints},
          closed,
          s.closed_form ? Cell(s.closed_form->value) : Cell(std::string()),
          s.cluster,
          verification,
          std::string(s.verified ? "yes" : "no")};
}

}  // namespace

void print_schedule_summary(const ScheduleSummary& s, OutputFormat format, std::ostream& out) {
  const std::unique_ptr<Reporter> reporter = Reporter::make(format, out);
  reporter->begin({{}, schedule_columns()});
  reporter->row(schedule_cells(s));
  reporter->end();
}

}  // namespace topotune::cli
