#pragma once
// The measure loop of `topotune measure`, for host and device harnesses alike: every
// (algorithm, size) point in order, each through a Harness, under a Watchdog, then a final
// barrier. Failure policy (docs/runtime.md): nothing may hang and no partial result appears.
//  * bad input (an unknown algorithm, a schedule that cannot be generated) is the same on
//    every rank: the loop returns it and every rank stops the same way;
//  * a transport failure or a failed measurement is this rank's alone: the others would wait
//    for it forever, so the loop calls on_fatal (`topotune measure`: MPI_Abort, which ends the
//    job) before returning the error;
//  * a rank that stops making progress (a peer died or hangs) is the watchdog's: it is kicked
//    before every iteration and before the final barrier.

#include <functional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/units.h"
#include "measurement/measurement.h"
#include "runtime/candidate.h"
#include "runtime/harness.h"
#include "runtime/watchdog.h"

namespace topotune::rt {

/// The points to measure: every algorithm at every size, algorithms outermost.
struct MeasurePoints {
  std::vector<std::string> algorithms;
  std::vector<Bytes> sizes;
};

/// Makes the candidate of one point on this rank (the caller's glue to the schedule
/// generators, which the runtime may not see). An Errc::Transport error is fatal; any other
/// is taken to be the same on every rank.
using CandidateFactory = std::function<Expected<Candidate>(const std::string& algorithm, Bytes)>;

/// What the loop tells its caller; every hook is optional.
struct MeasureLoopHooks {
  /// Before every iteration of every point, on every rank (after the watchdog's kick).
  std::function<void(const HarnessProgress&)> on_progress;
  /// After every point's iterations, on every rank (e.g. to clear a progress line).
  std::function<void()> on_point_done;
  /// Rank 0, with each point's row as soon as it is measured.
  std::function<void(const MeasurementRow&)> on_row;
  /// A failure only this rank sees; it should end the whole job (it may not return).
  std::function<void(const Error&)> on_fatal;
};

/// The watchdog's name for an iteration: "ring 1 MiB iteration 3".
std::string progress_place(const std::string& algorithm, Bytes size, int iteration);

/// Runs the loop on this rank. Returns the rows (rank 0; empty elsewhere) after the final
/// barrier, or the first error (see the file comment for which errors call on_fatal first).
Expected<std::vector<MeasurementRow>> run_measure_loop(Harness& harness, Watchdog& watchdog,
                                                       const MeasurePoints& points,
                                                       const CandidateFactory& make_candidate,
                                                       const MeasureLoopHooks& hooks = {});

}  // namespace topotune::rt
