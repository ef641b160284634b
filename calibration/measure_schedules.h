#pragma once
// Where `topotune measure` gets its schedules: the layout of the ranks mpirun launched, and
// each measured algorithm's schedule generated for it by the algorithms registry. The glue
// between the runtime (which runs and times them, and may not see topology or the generators)
// and the generators lives here, beside the names `validate --measured` reads back
// (timing/schedule_predictor.h).

#include <optional>
#include <string>
#include <vector>

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// The measured layout: the cluster if the run names one, else `ranks_per_node` ranks per host.
struct MeasureLayout {
  std::optional<topo::ClusterSpec> cluster;  ///< from --cluster: decides the layout
  int ranks_per_node = 1;
  int hosts = 1;
  int channels = 1;  ///< algorithm options (--channels, --chunks)
  int chunks = 1;
};

/// Checks the layout against the ranks actually launched (`rank_hosts`: each rank's host name,
/// as MPI reports them). With a cluster (read from `cluster_origin`, named in messages), its
/// hosts x GPUs must be the ranks launched and `ranks_per_node` (when > 0) its GPUs; without,
/// `ranks_per_node` 0 means "as launched" (ranks / distinct host names), and the ranks must
/// fill whole hosts.
Expected<MeasureLayout> make_measure_layout(std::optional<topo::ClusterSpec> cluster,
                                            const std::string& cluster_origin, int ranks_per_node,
                                            const std::vector<std::string>& rank_hosts);

/// The schedule of `algorithm` (a name of tune::measured_algorithm: registry names, planner
/// labels, "ps:cpu", "hierarchical:tree"; not `mpi` or `nccl`) for `spec` on `layout`: on the
/// cluster's topology when it has one, else on a flat layout of `ranks_per_node` per host.
Expected<sched::Schedule> make_measure_schedule(const std::string& algorithm,
                                                const sched::CollectiveSpec& spec,
                                                const MeasureLayout& layout);

}  // namespace topotune::tune
