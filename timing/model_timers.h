#pragma once
// ModelTimers: one model of time for one cluster (docs/planner.md, "One model of time").
//
// Every candidate, NCCL's own algorithms and topotune's schedules alike, is timed on the same
// Topology with one parameter set (the NCCL model's: defaults, data/nccl_model.json, a
// calibration file):
//   - the link classes carry its physical parameters (link efficiencies, the NIC latency:
//     tune::apply_model_to_links; the caller applies them to the spec, as `--calibration`
//     does, unless a cluster file states its own);
//   - NCCL's algorithms: the NCCL predictor (its protocols, channels, pipeline), whose network
//     stage keeps the share of its rate that the flow simulator gives the algorithm's traffic
//     on this fabric (FabricProbe: placement, spine oversubscription, per-flow caps);
//   - topotune's schedules: the closed forms with NCCL's Simple-protocol software costs
//     (software_costs) and the probed all-GPUs-cross rate, then the flow simulator on the
//     full topology, which adds the same software costs to its makespan.
// The plan's rows say which of them timed each one ("nccl-predictor", "closed-form",
// "simulated"; CollectiveTimer::model).

#include <memory>

#include "algorithms/nccl/nccl_params.h"
#include "algorithms/nccl/nccl_system.h"
#include "timing/closed_form_timer.h"
#include "timing/fabric_probe.h"
#include "timing/nccl_timer.h"
#include "timing/simulator_timer.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// The most the screen's time of a topotune schedule (closed forms) may differ
/// from the rank stage's (flow simulator) at one size, relative to the latter;
/// a row's step differs by at most as much (buckets run in FIFO order: each
/// completion scales at most by the same factor). NCCL's algorithms: 0 (one
/// predictor in both stages). Tested on p4d x 4, cluster and 16:1 spread
/// (tests/nccl/one_model_test.cc): the CPU parameter servers (ps and
/// hierarchical(ps)) differ by up to 7.2 % (ps(k=1) at 512 MiB), every other
/// schedule by less than 0.11 %.
inline constexpr double kScreenMargin = 0.08;

class ModelTimers {
 public:
  /// Probes the fabric and builds the screen timers for `spec` with `params`. `nccl_transport`
  /// false: topotune's schedules run without NCCL (`--backend mpi`), so they pay the stated
  /// ShapeDefaults assumptions instead of NCCL's software costs. Errors: the topology
  /// builder's, a cluster the NCCL model cannot describe. `version`: the NCCL release whose
  /// choices the NCCL timer reproduces (unknown: the latest modeled).
  static Expected<std::unique_ptr<ModelTimers>> create(const topo::ClusterSpec& spec,
                                                       const algo::NcclModelParams& params,
                                                       bool nccl_transport = true,
                                                       algo::NcclVersion version = {});

  /// The flow simulator over the whole cluster (rank stage) on top of screen()
  /// (nccl backend) or of closed_form(); it must not outlive this object.
  Expected<std::unique_ptr<SimulatorTimer>> simulator(Bytes max_bytes, SimBudget budget = {},
                                                      bool nccl_backend = true) const;

  const NcclTimer& screen() const { return *nccl_; }  ///< NCCL predictor + closed forms
  const ClosedFormTimer& closed_form() const { return *closed_form_; }
  const FabricProbe& fabric() const { return fabric_; }
  const algo::NcclSystem& system() const { return system_; }  ///< with the probed fabric

 private:
  ModelTimers() = default;
  topo::ClusterSpec spec_;
  algo::NcclSystem system_;
  FabricProbe fabric_;
  std::unique_ptr<ClosedFormTimer> closed_form_;
  std::unique_ptr<NcclTimer> nccl_;
};

}  // namespace topotune::tune
