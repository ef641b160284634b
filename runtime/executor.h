#pragma once
// Executor: runs one process's part of a Schedule over a Transport, with real bytes.
//
// A process owns its rank's endpoint and every extra endpoint (HostCpu server) whose executor
// is its rank. Each owned endpoint has a copy of the logical buffer: the rank's is the caller's
// buffer (input and result), each server gets its own host buffer, zeroed at the start of every
// run (a server starts empty). For every transfer the process takes its part:
//   src owned, dst remote:  isend(slice of src's copy)           -> complete when the send is
//   src remote, dst owned:  irecv(into the slice, or into scratch for reduce, then
//                           Reducer::sum into the slice)         -> complete when reduced
//   both owned:             memcpy or sum at once (no message)
//   neither:                nothing.
// Empty slices move no message on either side; they complete with their dependencies.
//
// Dependencies. A process can observe only its own transfers' completion, so each local
// transfer waits for its *projected* dependencies: the local transfers it depends on directly,
// or through any chain of transfers that this process takes no part in (deps of remote
// transfers are followed transitively until a local one is reached). This is sufficient:
//  * every read or write of an endpoint's copy is a transfer local to that endpoint's owner;
//    two transfers that touch the same range of one copy with a write among them are ordered
//    by the DAG (the interpreter rejects the schedule otherwise), hence by the projection, so
//    the owner performs them in that order (RAW, WAR and WAW hazards alike);
//  * data that a receive takes comes from the sender's copy, which the sender sends only after
//    its own projected dependencies completed, i.e. after every write the DAG orders before;
//  * dependencies between transfers of other processes only order those processes' work; a
//    process needs them only through a local transfer, which the projection covers.
// The tests run every schedule that passes the symbolic interpreter this way with exact checks.
//
// Matching. A transfer's message carries tag = id mod (max_tag - kReservedTags + 1). Two local
// transfers with the same peer, direction and tag are additionally ordered by id, so both sides
// post them in the same order and the transport's non-overtaking rule matches them correctly.
// Every wait points to a smaller transfer id, so the lowest unfinished transfer can always make
// progress: no deadlock for any valid schedule.
//
// Overlap: everything whose dependencies are complete is posted at once; completion is polled
// with Transport::test(), so independent transfers (both ring directions, several channels, a
// server's many inputs) proceed together.

#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"
#include "runtime/transport.h"

namespace topotune::rt {

/// Executes schedules for one process; reusable across runs (keeps its plan and scratch).
/// Not thread-safe: one Executor per rank thread.
class Executor {
 public:
  Executor();
  ~Executor();
  Executor(Executor&&) noexcept;
  Executor& operator=(Executor&&) noexcept;

  /// Computes `me`'s part of `s` (projection, tags, buffers). run() calls it when needed; call
  /// it explicitly to keep planning out of a timed region. `s` must outlive the plan.
  [[nodiscard]] Expected<void> prepare(const sched::Schedule& s, RankId me, Tag max_tag);

  /// Runs `me`'s part of `s` on `buffer` (spec().bytes long, host or device memory matching
  /// the transport). Returns when all of this process's transfers are complete. Errors carry
  /// the transfer id and peer. A failure may leave the buffer and peers mid-collective.
  [[nodiscard]] Expected<void> run(const sched::Schedule& s, RankId me, BufferView buffer,
                                   Transport& transport, Reducer& reducer);

  /// Number of transfers of the prepared plan this process takes part in (tests, stats).
  std::size_t local_transfers() const;

 private:
  struct Plan;
  std::unique_ptr<Plan> plan_;
};

}  // namespace topotune::rt
