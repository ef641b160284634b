#pragma once
// SchedulePredictor: the predicted time of a measured run of one of topotune's own algorithms
// (or of Open MPI's MPI_Allreduce), as `validate --measured` and the emulated-cluster test
// need it: the schedule `topotune measure` ran, generated the same way, timed by the flow
// simulator on the cluster's topology.
//
// Names are those `topotune measure` records in a row's "algorithm": registry names
// ("ring", "tree", "rhd", "ps", "hierarchical", "hierarchical:tree", ...), "ps:cpu" /
// "ps:colocated" for the parameter server's placement, planner labels ("hierarchical(rhd)",
// "ps(k=2)", "ring/ch4": generated as `plan` timed them, tune::make_schedule_algorithm), and
// "mpi". `mpi` is modelled as rhd
// (recursive halving-doubling, Rabenseifner), which is what Open MPI's MPI_Allreduce runs for
// the sizes measured, over the bit-reversed rank order: Open MPI halves at distance 1 first,
// the generator at distance p/2 first, and position v <-> rank bitrev(v) turns one into the
// other (on 2 hosts x 2 ranks it keeps the first, largest exchange inside a host).

#include <memory>
#include <optional>
#include <string>

#include "algorithms/algorithm.h"
#include "algorithms/rank_layout.h"
#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "core/units.h"
#include "simulator/sim_result.h"
#include "timing/collective_timer.h"
#include "topology/cluster_spec.h"
#include "topology/topology.h"

namespace topotune::tune {

/// A measured algorithm name resolved to what generates its schedule.
struct MeasuredAlgorithm {
  std::string registry_name;       ///< the algorithms registry's name (unless `planner`)
  algo::AlgorithmOptions options;  ///< channels (the layout's), chunks, placement
  /// "mpi": Open MPI's own. Allreduce: rhd over the bit-reversed rank order; reduce-scatter and
  /// allgather: what coll/tuned picks (algorithms/open_mpi_decision.h), in rank order.
  bool open_mpi = false;
  std::optional<AlgorithmChoice> planner;  ///< a planner label: make_schedule_algorithm's
};

/// Resolves a `topotune measure` algorithm name. "nccl" is not one (NCCL's own predictor
/// answers it); unknown names are NotFound errors listing the known ones.
Expected<MeasuredAlgorithm> measured_algorithm(const std::string& name, int channels = 1,
                                               int chunks = 1);

/// The generator of a resolved name for `spec` (the collective; for `mpi` reduce-scatter and
/// allgather also its ranks and bytes, which decide Open MPI's algorithm). Unsupported where
/// Open MPI runs an algorithm topotune has no schedule of (its butterfly, gatherv + broadcast,
/// ...).
Expected<std::unique_ptr<algo::Algorithm>> make_measured_algorithm(
    const MeasuredAlgorithm& a, const sched::CollectiveSpec& spec);

/// The layout the schedule runs on: `layout` itself, or for `mpi` one ring in bit-reversed
/// order for allreduce (the identity when the rank count is not a power of two) and in rank
/// order for reduce-scatter and allgather (Open MPI's rings send to rank + 1).
algo::RankLayout measured_layout(const MeasuredAlgorithm& a, const algo::RankLayout& layout,
                                 sched::Collective collective);

/// What a `mpi` row of `spec` is modelled by, for reports: "ring (Open MPI model)".
std::string open_mpi_model_name(const sched::CollectiveSpec& spec);

/// Predicts measured rows on one cluster.
class SchedulePredictor {
 public:
  /// Builds the cluster's topology and the layout `measure --cluster` uses (`channels` rings).
  /// Schedules that would not fit `memory` are refused before they are built.
  static Expected<SchedulePredictor> create(const topo::ClusterSpec& spec, int channels = 1,
                                            int chunks = 1, algo::MemoryBudget memory = {});

  /// The simulated time of `algorithm` (a measure name) for `spec` (its ranks must be ranks()).
  Expected<Seconds> time(const std::string& algorithm, const sched::CollectiveSpec& spec) const;
  /// The whole simulation (per-link statistics too) behind time().
  Expected<sim::SimResult> simulate(const std::string& algorithm,
                                    const sched::CollectiveSpec& spec) const;

  int ranks() const { return layout_.ranks(); }                 ///< ranks of the cluster
  const topo::Topology& topology() const { return topology_; }  ///< the built topology
  const algo::RankLayout& layout() const { return layout_; }    ///< at create()'s channels

 private:
  SchedulePredictor() = default;
  Expected<algo::RankLayout> layout_for(int channels) const;
  topo::Topology topology_;
  algo::RankLayout layout_;
  int channels_ = 1;
  int chunks_ = 1;
  algo::MemoryBudget memory_;
};

}  // namespace topotune::tune
