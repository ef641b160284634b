#include "cli/measure_report.h"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "core/quantity_parse.h"
#include "core/string_printf.h"

namespace topotune::cli {
namespace {

const std::vector<Column>& measure_columns() {
  static const std::vector<Column> columns = {{"bytes", " %11lld"},      {"count", " %12lld"},
                                              {"dtype", " %6s"},         {"time_us", " %12.1f"},
                                              {"algbw_GBps", " %10.4f"}, {"busbw_GBps", " %10.4f"},
                                              {"algorithm", "  %-14s"},  {"errors", " %7lld"}};
  return columns;
}

}  // namespace

std::unique_ptr<Reporter> start_measure_report(OutputFormat format, const rt::Measurement& m,
                                               int warmup, int iterations, std::ostream& out) {
  std::unique_ptr<Reporter> r = Reporter::make(format, out);
  const std::string title = "# topotune measure: " + std::to_string(m.ranks) + " ranks on " +
                            std::to_string(m.nodes.value_or(0)) + " hosts, backend " + m.backend +
                            (m.nccl_version ? " " + *m.nccl_version : std::string()) + ", " +
                            std::to_string(warmup) + " warm-up + " + std::to_string(iterations) +
                            " timed iterations per point\n";
  r->begin({{title,
             string_printf("#%11s %12s %6s %12s %10s %10s  %-14s %7s\n", "size", "count", "type",
                           "time(us)", "algbw", "busbw", "algorithm", "#wrong"),
             string_printf("#%11s %12s %6s %12s %10s %10s  %-14s %7s\n", "(B)", "(elements)", "",
                           "", "(GB/s)", "(GB/s)", "", "")},
            measure_columns()});
  return r;
}

void report_measurement_row(Reporter& reporter, const rt::MeasurementRow& r) {
  reporter.row({r.bytes, r.count, std::string(sched::dtype_name(r.dtype)), r.time_us, r.algbw_GBps,
                r.busbw_GBps, r.algorithm, r.errors.value_or(0)});
}

rt::MeasureLoopHooks report_hooks(int me, Reporter* reporter) {
  rt::MeasureLoopHooks hooks;
  if (reporter) {
    hooks.on_row = [reporter](const rt::MeasurementRow& r) {
      report_measurement_row(*reporter, r);
    };
  }
  if (me == 0 && ::isatty(STDERR_FILENO)) {
    hooks.on_progress = [](const rt::HarnessProgress& p) {
      std::fprintf(stderr, "\r%-14s %8s  iteration %d/%d   ", p.algorithm->c_str(),
                   format_size(Bytes(p.bytes)).c_str(), p.iteration + 1, p.iterations);
    };
    hooks.on_point_done = [] { std::fprintf(stderr, "\r%60s\r", ""); };
  }
  return hooks;
}

}  // namespace topotune::cli
