#pragma once
// LocalPlan: one process's part of a Schedule, as the Executor runs it (see executor.h for
// the rules: which transfers are local, projected dependencies, tags).
// Built once per (schedule, rank); O(transfers + dependencies) plus the projection sets.

#include <cstdint>
#include <vector>

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"
#include "runtime/transport.h"

namespace topotune::rt {

/// What this process does for one transfer.
enum class LocalOpKind : std::uint8_t {
  Send,   ///< src owned, dst remote
  Recv,   ///< src remote, dst owned
  Local,  ///< both owned: copy or sum in memory
  Empty,  ///< empty slice: completes with its dependencies, no message
};

/// One transfer this process takes part in.
struct LocalOp {
  TransferId id;
  LocalOpKind kind = LocalOpKind::Empty;
  RankId peer;  ///< the process at the other end (Send/Recv)
  Tag tag = 0;  ///< message tag (Send/Recv)
  int src_slot =
      -1;  ///< owned buffer holding src's copy: 0 = the rank's, k = k-th server; -1 remote
  int dst_slot = -1;           ///< same for dst
  std::uint32_t num_deps = 0;  ///< projected local dependencies (executor.h)
};

/// The plan: local ops in transfer-id order and, per op, the ops that wait for it.
struct LocalPlan {
  const sched::Schedule* schedule = nullptr;  ///< identity of the planned schedule
  std::size_t schedule_size = 0;
  RankId me;
  std::vector<LocalOp> ops;
  std::vector<std::uint32_t> dependents_end;  ///< CSR: dependents of ops[i] end here
  std::vector<std::uint32_t> dependents;      ///< indices into ops
  int num_server_buffers = 0;                 ///< owned extra endpoints (slots 1..n)

  /// Indices of the ops that wait for ops[i].
  std::span<const std::uint32_t> dependents_of(std::size_t i) const {
    const std::uint32_t b = i == 0 ? 0 : dependents_end[i - 1];
    return std::span<const std::uint32_t>(dependents).subspan(b, dependents_end[i] - b);
  }
};

/// The process that runs endpoint `e`: the rank itself, or a server's executor rank.
RankId owner_of(const sched::Schedule& s, EndpointId e);

/// Plans `me`'s part of `s` with tags in [0, max_tag - kReservedTags].
Expected<LocalPlan> make_local_plan(const sched::Schedule& s, RankId me, Tag max_tag);

/// The checks every executor makes before running `s`: the buffer holds the whole collective
/// and the transport (`transport_kind`, for the message) has exactly the schedule's ranks.
Expected<void> check_run_arguments(const sched::Schedule& s, const BufferView& buffer,
                                   int world_size, const char* transport_kind);

}  // namespace topotune::rt
