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
// One model of time (docs/planner.md): the planner builds it with software_costs() (NCCL's
// Simple-protocol constants from the same parameter set as the NCCL predictor, default or
// calibrated) and a FabricProbe: the network share every GPU of a host keeps when all of them
// cross at once comes from the flow simulator on the whole cluster (rails sharing a NIC, a
// spine shared by a rack, per-flow caps), as CostParams::nic_sharing.
//
// Known limit (the closed forms' own): apart from that all-GPUs-cross rate they are
// uncongested, so a flat ring or tree across hosts is costed on one rail's route (one NIC).

#include <map>
#include <memory>

#include "algorithms/algorithm.h"
#include "algorithms/cost_params.h"
#include "algorithms/nccl/nccl_system.h"
#include "algorithms/rank_layout.h"
#include "timing/cluster_shape.h"
#include "timing/collective_timer.h"
#include "timing/fabric_probe.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// The software costs of one model of time: NCCL's Ring/Simple constants (topotune's schedules
/// move data with NCCL send/recv, which run Simple) scaled by `params`: per intra-host step
/// NCCL's NVLink hop latency x nvlink_latency_scale, per network step NCCL's network hop
/// latency x net_latency_scale plus the host staging latency (no GPUDirect RDMA), per
/// collective NCCL's base latency x base_latency_scale. The NIC latency itself is the network
/// links' (calibration maps it onto them).
ShapeDefaults software_costs(const algo::NcclModelParams& params, const algo::NcclSystem& system);

/// `wire` with the all-GPUs-cross rate of `fabric`: the GPUs of a host crossing at once share
/// whatever is narrowest on the whole cluster (their NIC, the rack's spine uplinks, a per-flow
/// cap), as many as the simulated rate divides the one-flow rate by (nic_sharing).
algo::CostParams with_fabric(algo::CostParams wire, const FabricProbe& fabric);
/// `wire` with the software costs added to every hop's latency (op_latency is per collective,
/// the caller's).
algo::CostParams with_software_costs(algo::CostParams wire, const ShapeDefaults& d);

class ClosedFormTimer final : public CollectiveTimer {
 public:
  /// Reads the cost parameters and the intra-host ring order from a 2-host topology of
  /// `spec` and builds the layout of all spec.hosts hosts. With `fabric`, the rate each GPU
  /// keeps when all cross at once is at most fabric->rails_rate.
  static Expected<ClosedFormTimer> create(const topo::ClusterSpec& spec,
                                          const ShapeDefaults& d = {},
                                          const FabricProbe* fabric = nullptr);
  /// From parts (tests).
  ClosedFormTimer(algo::RankLayout layout, algo::CostParams params, Seconds op_latency);

  std::string name() const override { return "closed forms (algorithms/cost_model)"; }
  Expected<Seconds> allreduce(const AlgorithmChoice& algo, Bytes bytes) const override;
  std::string model(const AlgorithmChoice&) const override { return "closed-form"; }

  /// The software costs' share of allreduce() (the time with ShapeDefaults minus the time
  /// with wire latencies only), >= 0: what the flow simulator, which sees wire latencies only,
  /// adds to its makespan so that both stages pay the same costs.
  Expected<Seconds> software_overhead(const AlgorithmChoice& algo, Bytes bytes) const;

  const algo::CostParams& params() const { return params_; }  ///< with the software costs

 private:
  Expected<const algo::Algorithm*> algorithm(const AlgorithmChoice& a) const;
  Expected<Seconds> closed_form(const AlgorithmChoice& a, Bytes bytes,
                                const algo::CostParams& p) const;

  algo::RankLayout layout_;
  algo::CostParams params_;
  algo::CostParams wire_;  ///< params_ without the software costs
  Seconds op_latency_;
  mutable std::map<AlgorithmChoice, std::shared_ptr<algo::Algorithm>> algorithms_;
};

}  // namespace topotune::tune
