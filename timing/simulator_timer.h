#pragma once
// SimulatorTimer: allreduce times from the flow simulator (sim::Simulator, max-min fair link
// sharing) running the algorithm's own schedule on the full cluster topology, so contention
// the closed forms ignore (two rails on one NIC, a shared PCIe switch, a spine) shows up.
//
// The tuner asks for many bucket sizes; a schedule's event count does not depend on its size,
// so each algorithm is simulated at a few sizes (1 MiB x 8^k up to `max_bytes`; x 64^k for
// big schedules) and times in between are interpolated linearly (exact where the time is
// affine in the size between two samples, as it is for an uncongested α–β schedule).
//
// Work is bounded deterministically (no wall clock, so plans stay reproducible): a schedule
// whose transfer count, estimated from its shape before generating it, is above
// SimBudget::max_transfers is refused (Unsupported), and so is any simulation once the
// transfers simulated so far reach SimBudget::max_total. Transfers count as the simulator's
// work: ring and hierarchical(ring) on a cluster with a host shift are generated and simulated
// one flow per orbit of twins (simulator/symmetry.h, collective_simulation.h), so at 1024 p5
// hosts (128-node pods under a super-spine) hierarchical(ring)'s 16.8 M transfers are 2.1 M
// distinct ones; other schedules are generated in full (at most 20 M). There is no rank
// cut-off. A refusal is the error of allreduce(), which the tuner turns into a note.
//
// NCCL's own algorithms (nccl:default, nccl:ring, nccl:tree) spread channels over all rails;
// topotune's ring/dbtree schedules use one rail, so simulating them would misstate what NCCL
// does. They are delegated to `nccl_like` (the NCCL predictor) and the name says so.
// topotune's schedules (ring and dbtree included) are simulated. `nccl_backend` only changes
// the name.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "timing/closed_form_timer.h"
#include "timing/collective_timer.h"
#include "topology/cluster_spec.h"
#include "topology/topology.h"

namespace topotune::tune {

/// How much the rank stage may simulate (transfers are the simulator's unit of work; about
/// 0.25 M per second on the development machine).
struct SimBudget {
  std::int64_t max_transfers = 400'000;  ///< one schedule (estimated before generating it)
  std::int64_t max_total = 3'000'000;    ///< all simulations of one timer
  std::int64_t coarse_above = 50'000;    ///< sample at 1 MiB x 64^k instead of x 8^k above
};

class SimulatorTimer final : public CollectiveTimer {
 public:
  /// Builds the cluster's topology. Errors: the builder's.
  /// With `software`, its software_overhead() is added to every simulated time: the
  /// simulator sees wire latencies only, and the screen pays NCCL's per-step and per-collective
  /// costs (one model of time: both stages pay the same; `software` must outlive the timer).
  static Expected<std::unique_ptr<SimulatorTimer>> create(
      const topo::ClusterSpec& spec, const CollectiveTimer& nccl_like, Bytes max_bytes,
      SimBudget budget = {}, bool nccl_backend = true, const ClosedFormTimer* software = nullptr);

  std::string name() const override;
  Expected<Seconds> allreduce(const AlgorithmChoice& algo, Bytes bytes) const override;
  /// "simulated" for what it simulates, else `nccl_like`'s.
  std::string model(const AlgorithmChoice& algo) const override;

  /// Simulations run so far, and their transfers (for reports and tests).
  int simulations() const { return simulations_; }
  std::int64_t transfers_simulated() const { return transfers_; }
  /// One line naming the algorithms simulated so far (sorted), or nothing.
  std::vector<std::string> summary() const;
  /// The fabric it simulates, in words: "one switch", "16 leaves and a spine", "256 leaves,
  /// 8 spines (pods of 4 racks) and a super-spine".
  std::string fabric() const;

 private:
  SimulatorTimer(topo::Topology topology, const CollectiveTimer& nccl_like, Bytes max_bytes,
                 SimBudget budget, bool nccl_backend);
  bool delegated(const AlgorithmChoice& algo) const;
  Expected<Seconds> interpolated(const AlgorithmChoice& algo, Bytes bytes) const;
  Expected<Seconds> simulate(const AlgorithmChoice& algo, Bytes bytes) const;
  Expected<std::vector<Seconds>> sample(const AlgorithmChoice& algo) const;
  std::vector<Bytes> samples(std::int64_t transfers) const;

  topo::Topology topology_;
  const CollectiveTimer& nccl_like_;
  Bytes max_bytes_;
  SimBudget budget_;
  bool nccl_backend_ = true;
  const ClosedFormTimer* software_ = nullptr;
  mutable std::map<AlgorithmChoice, Expected<std::vector<Seconds>>> sampled_;
  mutable int simulations_ = 0;
  mutable std::int64_t transfers_ = 0;
};

}  // namespace topotune::tune
