#pragma once
// Candidate: one implementation of a collective (allreduce, reduce-scatter or allgather, in
// place on the whole buffer) that `topotune measure` times, on host memory (MeasureHarness) or
// device memory (runtime/nccl's DeviceHarness) alike.

#include <functional>
#include <string>

#include "core/expected.h"
#include "runtime/transport.h"

namespace topotune::rt {

/// One implementation of the measured collective (in place) at one size. Whatever `run` needs (a
/// prepared schedule, an executor) is owned by the closure, so a Candidate is self-contained.
struct Candidate {
  std::string name;  ///< the row's algorithm column, e.g. "ring", "mpi", "nccl"
  /// Runs the collective once on `buffer` (the whole logical buffer of this rank, in the
  /// memory of the harness that times it) and returns when it is complete on this rank.
  std::function<Expected<void>(BufferView buffer)> run;
};

}  // namespace topotune::rt
