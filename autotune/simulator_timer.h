#pragma once
// SimulatorTimer: allreduce times from the flow simulator (sim::Simulator, max-min fair link
// sharing) running the algorithm's own schedule on the full cluster topology, so contention
// the closed forms ignore (two rails on one NIC, a shared PCIe switch, a spine) shows up.
//
// The tuner asks for many bucket sizes; a schedule's event count does not depend on its size,
// so each algorithm is simulated at a few sizes (1 MiB x 8^k up to `max_bytes`) and times in
// between are interpolated linearly (exact where the time is affine in the size between two
// samples, as it is for an uncongested α–β schedule).
//
// nccl-default, ring and tree mean NCCL's own algorithms (the plan emits NCCL_ALGO for them),
// which spread channels over all rails; topotune's ring/tree schedules use one rail, so
// simulating them would misstate what NCCL does. Those choices are delegated to `nccl_like`
// (the screening timer until the NCCL predictor is wired) and the name says so.

#include <map>
#include <memory>
#include <vector>

#include "autotune/collective_timer.h"
#include "topology/cluster_spec.h"
#include "topology/topology.h"

namespace topotune::tune {

class SimulatorTimer final : public CollectiveTimer {
 public:
  /// Builds the cluster's topology. Errors: the builder's; Errc::Unsupported above
  /// `max_ranks` ranks (simulating every bucket size of a huge cluster is not worth it).
  static Expected<std::unique_ptr<SimulatorTimer>> create(const topo::ClusterSpec& spec,
                                                          const CollectiveTimer& nccl_like,
                                                          Bytes max_bytes, int max_ranks = 256);

  std::string name() const override;
  Expected<Seconds> allreduce(const AlgorithmChoice& algo, Bytes bytes) const override;

  /// Simulations run so far (for reports and tests).
  int simulations() const { return simulations_; }

 private:
  SimulatorTimer(topo::Topology topology, const CollectiveTimer& nccl_like, Bytes max_bytes);
  Expected<Seconds> simulate(const AlgorithmChoice& algo, Bytes bytes) const;

  topo::Topology topology_;
  const CollectiveTimer& nccl_like_;
  std::vector<Bytes> samples_;
  mutable std::map<AlgorithmChoice, std::vector<Seconds>> sampled_;
  mutable int simulations_ = 0;
};

}  // namespace topotune::tune
