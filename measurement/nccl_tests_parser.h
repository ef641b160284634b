#pragma once
// Parser for the text output of nccl-tests (all_reduce_perf, all_gather_perf,
// reduce_scatter_perf, broadcast_perf) as people paste it into issues and docs.
//
// Accepted: the "# nThread .. nGpus .." header, "#  Rank  0 Group  0 Pid .. on HOST device .."
// lines (counted for ranks and nodes), NCCL INFO/WARN chatter and other non-table lines
// (ignored), the column header (which fixes the layout: with or without redop/root, "#wrong"
// or the older "error" column), out-of-place and in-place columns, "N/A", the "Avg bus
// bandwidth" footer, line prefixes added by srun -l ("0: ") or mpirun --tag-output
// ("[1,0]<stdout>:"), CRLF line ends. A line that starts like a result row but does not parse
// (truncated, wrong column count, non-numeric field) is an error naming its line number;
// so is a log with no result rows.

#include <optional>
#include <string>
#include <string_view>

#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "measurement/measurement.h"

namespace topotune::rt {

struct NcclTestsParseOptions {
  std::string origin = "<log>";                 ///< file name for messages
  std::optional<sched::Collective> collective;  ///< overrides detection
  std::optional<int> ranks;                     ///< overrides detection
};

/// Parses one nccl-tests run into a Measurement (source "nccl-tests", algorithm "nccl").
/// Ranks come from the Rank lines, else from busbw/algbw, else from options (error if none).
Expected<Measurement> parse_nccl_tests(std::string_view text, const NcclTestsParseOptions& options);

/// Reads `path` and parses it (origin = path).
Expected<Measurement> load_nccl_tests_log(const std::string& path, NcclTestsParseOptions options);

}  // namespace topotune::rt
