#pragma once
// ClosedFormTimer: allreduce times from the algorithms module's closed forms
// (algorithms/cost_model.h, each Algorithm::closed_form), on the CostParams the algorithms
// module reads from the topology, for the cluster's full rank layout.
//
// It adds the software costs of ShapeDefaults (a per-step overhead on top of each hop's wire
// latency, a launch cost per collective): the topology's latencies are wire latencies only,
// and without them tiny buckets would look free. Used alone (tests), nccl-default is
// min(ring, tree); the planner wraps it in NcclTimer, which answers NCCL's algorithms itself.
// Parameter servers are Herring/SMDDP-style, on the host CPUs (PsPlacement::Cpu) with k
// shards. A channel count goes to AlgorithmOptions::channels; the closed forms do not depend
// on it (the channels share the same links).
//
// Known limit (the closed forms' own, by design): they are uncongested, so a flat ring or tree
// across hosts is costed on one rail's route (one NIC), and rails that share a NIC are not
// charged for it; the flow simulator is what sees contention.

#include <map>
#include <memory>

#include "algorithms/algorithm.h"
#include "algorithms/cost_params.h"
#include "algorithms/rank_layout.h"
#include "autotune/cluster_shape.h"
#include "autotune/collective_timer.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

class ClosedFormTimer final : public CollectiveTimer {
 public:
  /// Reads the cost parameters and the intra-host ring order from a 2-host topology of
  /// `spec` and builds the layout of all spec.hosts hosts.
  static Expected<ClosedFormTimer> create(const topo::ClusterSpec& spec,
                                          const ShapeDefaults& d = {});
  /// From parts (tests).
  ClosedFormTimer(algo::RankLayout layout, algo::CostParams params, Seconds op_latency);

  std::string name() const override { return "closed forms (algorithms/cost_model)"; }
  Expected<Seconds> allreduce(const AlgorithmChoice& algo, Bytes bytes) const override;

 private:
  Expected<const algo::Algorithm*> algorithm(const AlgorithmChoice& a) const;

  algo::RankLayout layout_;
  algo::CostParams params_;
  Seconds op_latency_;
  mutable std::map<AlgorithmChoice, std::shared_ptr<algo::Algorithm>> algorithms_;
};

}  // namespace topotune::tune
