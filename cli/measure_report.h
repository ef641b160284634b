#pragma once
// measure's rows on the reporters (cli/reporter.h): nccl-tests' columns in the table, the same
// fields in CSV, printed by rank 0 as each point is measured. The JSON is the measurement
// document (measurement/measurement.h), written at the end.

#include <memory>
#include <ostream>

#include "cli/output_format.h"
#include "cli/reporter.h"
#include "measurement/measurement.h"
#include "runtime/measure_loop.h"

namespace topotune::cli {

/// A reporter for `format` (table or CSV) that has printed the title of the run `m` describes
/// (`warmup` and `iterations` per point) and the column headers.
std::unique_ptr<Reporter> start_measure_report(OutputFormat format, const rt::Measurement& m,
                                               int warmup, int iterations, std::ostream& out);

/// Prints one measured row.
void report_measurement_row(Reporter& reporter, const rt::MeasurementRow& row);

/// The loop's reporting hooks on rank `me`: rows to `reporter` (rank 0, when not null), and on
/// rank 0 with a terminal on stderr one overwritten progress line per iteration.
rt::MeasureLoopHooks report_hooks(int me, Reporter* reporter);

}  // namespace topotune::cli
