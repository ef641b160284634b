#pragma once
// SimResult: what one simulated collective produced. Figures follow nccl-tests: algbw = S / t,
// busbw = algbw x the collective's bus factor (allreduce 2(n-1)/n, allgather and
// reduce-scatter (n-1)/n, broadcast 1), with S = the spec's whole buffer and n its ranks.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "algorithms/schedule/collective_spec.h"
#include "core/strong_id.h"
#include "core/units.h"

namespace topotune::sim {

/// When a transfer became ready (all its dependencies complete: it is issued and starts paying
/// its route latency) and when it completed (delivered, and reduced for a reduce transfer).
struct TransferTiming {
  Seconds ready;
  Seconds end;
};

/// Traffic of one directed link over the whole run.
///
/// Why two times: a link can carry flows all along without being what limits them (a PCIe hop
/// in front of a congested uplink is "active" as long as the uplink is). `busy` counts the work
/// the link did, at its full rate, so it ranks true bottlenecks first: an uplink saturated the
/// whole run has busy == makespan, the PCIe hop feeding it a quarter of its rate a quarter.
struct LinkStats {
  Bytes bytes{0};     ///< payload that crossed it (each transfer counts once per link it crosses)
  Seconds busy{0};    ///< bytes / capacity: time it spent moving data at full rate
  Seconds active{0};  ///< time during which at least one flow was sending over it
};

struct SimResult {
  sched::CollectiveSpec spec;
  Seconds makespan{0};  ///< completion of the last transfer (0 for an empty schedule)
  BytesPerSec algbw;    ///< S / makespan (0 when the makespan is 0)
  BytesPerSec busbw;    ///< algbw x sched::busbw_factor
  /// Indexed by TransferId; empty when SimOptions::record_transfers is false. For a schedule
  /// given reduced (Simulator::run(ReducedSchedule)), by the representatives' ids.
  std::vector<TransferTiming> transfers;
  /// Indexed by LinkId, one entry per link of the network.
  std::vector<LinkStats> links;
  std::uint64_t events = 0;  ///< events processed (a measure of the simulation's work)
  /// Transfers each simulated flow stood for: 1 for a full run, m when the run was reduced by
  /// a symmetry of m twins (symmetry.h; `events` then counts the reduced run's events).
  int symmetry = 1;

  /// busy / makespan of a link: its average load, in [0, 1] (0 when the makespan is 0).
  double utilisation(LinkId link) const;
  /// The `k` busiest links that carried traffic, by busy time (descending), ties by link id.
  std::vector<LinkId> bottlenecks(std::size_t k) const;
};

}  // namespace topotune::sim
