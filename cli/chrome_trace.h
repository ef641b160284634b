#pragma once
// Chrome trace (chrome://tracing, Perfetto) of a simulated schedule: one track per endpoint,
// grouped by host (pid = host, tid = endpoint), one complete ("X") event per transfer on its
// sender's track from ready to completion, with args src, dst, bytes, reduce, channel.

#include <string>

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"
#include "simulator/sim_result.h"
#include "topology/topology.h"

namespace topotune::cli {

/// Largest schedule written as a trace (about 150 bytes of JSON per transfer); beyond it the
/// trace is refused with this limit in the message rather than silently truncated.
inline constexpr std::size_t kMaxTraceTransfers = 2'000'000;

/// The trace as JSON text ({"traceEvents": [...], "displayTimeUnit": "ns"}); times in µs.
/// Errors: a result without per-transfer timings, or a schedule over kMaxTraceTransfers.
Expected<std::string> chrome_trace_json(const sched::Schedule& schedule,
                                        const sim::SimResult& result,
                                        const topo::Topology& topology);

}  // namespace topotune::cli
