#include "runtime/measure_loop.h"

#include "core/quantity_parse.h"

namespace topotune::rt {
namespace {

/// Reports a failure only this rank sees (the job must end), then returns it.
Unexpected fatal(const MeasureLoopHooks& hooks, Error e) {
  if (hooks.on_fatal) hooks.on_fatal(e);
  return Unexpected(std::move(e));
}

}  // namespace

std::string progress_place(const std::string& algorithm, Bytes size, int iteration) {
  return algorithm + " " + format_size(size) + " iteration " + std::to_string(iteration);
}

Expected<std::vector<MeasurementRow>> run_measure_loop(Harness& harness, Watchdog& watchdog,
                                                       const MeasurePoints& points,
                                                       const CandidateFactory& make_candidate,
                                                       const MeasureLoopHooks& hooks) {
  std::vector<MeasurementRow> rows;
  for (const std::string& algorithm : points.algorithms) {
    for (Bytes size : points.sizes) {
      Expected<Candidate> c = make_candidate(algorithm, size);
      if (!c) {
        if (c.error().code == Errc::Transport) return fatal(hooks, std::move(c).error());
        return Unexpected(std::move(c).error());
      }
      auto on_progress = [&](const HarnessProgress& p) {
        watchdog.kick(progress_place(algorithm, size, p.iteration));
        if (hooks.on_progress) hooks.on_progress(p);
      };
      Expected<std::optional<MeasurementRow>> row = harness.measure(*c, size.value, on_progress);
      if (!row) return fatal(hooks, std::move(row).error());
      if (hooks.on_point_done) hooks.on_point_done();
      if (!*row) continue;
      if (hooks.on_row) hooks.on_row(**row);
      rows.push_back(std::move(**row));
    }
  }
  watchdog.kick("final barrier");
  if (Expected<void> b = harness.barrier(); !b) return fatal(hooks, std::move(b).error());
  return rows;
}

}  // namespace topotune::rt
