#include "calibration/measure_schedules.h"

#include <memory>
#include <set>
#include <utility>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "timing/schedule_predictor.h"
#include "topology/topology.h"

namespace topotune::tune {

Expected<MeasureLayout> make_measure_layout(std::optional<topo::ClusterSpec> cluster,
                                            const std::string& cluster_origin, int ranks_per_node,
                                            const std::vector<std::string>& rank_hosts) {
  MeasureLayout l;
  const int ranks = static_cast<int>(rank_hosts.size());
  if (cluster) {
    // The cluster decides the layout; it must match what mpirun launched.
    const int gpus = cluster->instance.num_gpus;
    if (cluster->hosts * gpus != ranks) {
      return fail(Errc::InvalidArgument, cluster_origin + " describes " +
                                             std::to_string(cluster->hosts) + " hosts x " +
                                             std::to_string(gpus) + " ranks, but " +
                                             std::to_string(ranks) + " ranks were launched");
    }
    if (ranks_per_node > 0 && ranks_per_node != gpus) {
      return fail(Errc::InvalidArgument, "--ranks-per-node disagrees with " + cluster_origin);
    }
    ranks_per_node = gpus;
  }
  if (ranks_per_node <= 0) {
    const auto distinct = std::set<std::string>(rank_hosts.begin(), rank_hosts.end()).size();
    ranks_per_node = distinct == 0 ? 0 : ranks / static_cast<int>(distinct);
  }
  if (ranks_per_node < 1 || ranks % ranks_per_node != 0) {
    return fail(Errc::InvalidArgument, std::to_string(ranks) + " ranks do not fill hosts of " +
                                           std::to_string(ranks_per_node) + " ranks");
  }
  l.cluster = std::move(cluster);
  l.ranks_per_node = ranks_per_node;
  l.hosts = ranks / ranks_per_node;
  return l;
}

Expected<sched::Schedule> make_measure_schedule(const std::string& algorithm,
                                                const sched::CollectiveSpec& spec,
                                                const MeasureLayout& layout) {
  // One mapping of names for measure and `validate --measured` (measured_algorithm), which
  // also says the channel count the schedule's layout needs.
  TT_TRY(const MeasuredAlgorithm m, measured_algorithm(algorithm, layout.channels, layout.chunks));
  TT_TRY(std::unique_ptr<algo::Algorithm> a, make_measured_algorithm(m, spec));
  algo::RankLayout ranks;
  if (layout.cluster) {
    TT_TRY(topo::Topology t, topo::build_topology(*layout.cluster));
    TT_TRY(ranks, algo::layout_from_topology(t, m.options.channels));
  } else {
    TT_TRY(ranks, algo::flat_layout(spec.ranks, layout.ranks_per_node));
  }
  return a->generate(spec, ranks).context(algorithm);
}

}  // namespace topotune::tune
