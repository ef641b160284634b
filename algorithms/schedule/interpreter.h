#pragma once
// The symbolic interpreter: proves, without moving a byte, that a Schedule achieves its
// collective. It tracks, for every endpoint and every byte range of the buffer, the set of
// ranks whose contributions that range holds, executing transfers in a dependency order:
//   copy:   dst[range] = src[range]
//   reduce: dst[range] = dst[range] + src[range]; the two sets must be disjoint (a rank's
//           input counted twice is a bug) and src must not be empty.
// Reading a range that holds nothing (uninitialised) is an error. It also rejects races: two
// transfers that touch the same range of the same endpoint, one of them writing (except two
// reduces into the same destination, which commute), must be ordered by the dependencies.
// Final state: allreduce, every rank holds all ranks on the whole buffer; reduce-scatter, rank
// i holds all ranks on block(i); allgather, every rank holds block(j) from rank j for all j;
// broadcast, every rank holds the root's buffer.

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"

namespace topotune::sched {

/// Proves the end state of `s` (see the file comment). The error names the first transfer or
/// the first rank and byte range that is wrong.
Expected<void> verify(const Schedule& s);

}  // namespace topotune::sched
