#pragma once
// DeviceExecutor: runs one rank's part of a Schedule on device memory over NCCL, the way a
// stream-ordered transport needs it (runtime/executor.h is the host-memory executor).
//
// It uses the same LocalPlan (which transfers this process takes part in, with projected
// dependencies) but no host-side waiting: every operation is queued on the transport's one
// CUDA stream in transfer-id order, so a dependency (always a smaller id) is complete before
// its dependents start, by stream order alone. Consecutive sends and receives share one NCCL
// group (so that a ring step's send and receive run together); a group is closed before an
// operation that depends on one of its members, and before a local copy or sum (a kernel queued
// inside a group would run before the group). Receives that reduce land in scratch and are
// summed into the slice by CudaReducer right after their group.
//
// Why id order and not "whatever is ready" (the host executor): NCCL has no tags (the n-th send
// from a to b matches b's n-th receive from a) and a queued group blocks the stream until its
// peers take part. With every rank queueing in id order, the groups before the one holding the
// lowest unfinished transfer contain only smaller, hence finished, transfers on both of its
// ranks, so it always progresses: no deadlock for any valid schedule.
//
// Endpoints that are not ranks (HostCpu servers) keep their copy in this rank's GPU memory:
// NCCL cannot move pageable host memory, and the server's sums run as CUDA kernels.

#include <memory>
#include <vector>

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"
#include "runtime/nccl/cuda_reducer.h"
#include "runtime/nccl/nccl_transport.h"
#include "runtime/transport.h"

namespace topotune::rt {

/// One rank's messages in the order run() queues them (transfer-id order), with their NCCL
/// group: what the deadlock and matching arguments above are about. For tests and inspection.
struct DeviceQueueEntry {
  TransferId id;
  RankId peer;
  bool send = false;
  int group = 0;  ///< groups are numbered in queue order; members are consecutive
};

/// The messages of `me`'s part of `s` (local copies, sums and empty transfers are omitted).
[[nodiscard]] Expected<std::vector<DeviceQueueEntry>> device_queue(const sched::Schedule& s,
                                                                   RankId me);

/// Executes schedules for one rank on device memory; reusable across runs (keeps its plan,
/// server copies and scratch). Not thread-safe.
class DeviceExecutor {
 public:
  DeviceExecutor();
  ~DeviceExecutor();
  DeviceExecutor(DeviceExecutor&&) noexcept;
  DeviceExecutor& operator=(DeviceExecutor&&) noexcept;

  /// Plans `me`'s part of `s` and allocates its device memory. run() calls it when needed;
  /// call it explicitly to keep planning and allocation out of a timed region.
  [[nodiscard]] Expected<void> prepare(const sched::Schedule& s, RankId me);

  /// Runs `me`'s part of `s` on `buffer` (device memory, spec().bytes long); `reducer` must
  /// launch on transport.stream(). Returns when all of this rank's work is complete.
  [[nodiscard]] Expected<void> run(const sched::Schedule& s, RankId me, BufferView buffer,
                                   NcclTransport& transport, CudaReducer& reducer);

  /// NCCL groups per run of the prepared plan (tests, stats).
  int groups() const;

 private:
  struct Plan;
  std::unique_ptr<Plan> plan_;
};

}  // namespace topotune::rt
