#include "cli/measure_schedules.h"

#include <set>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "autotune/schedule_predictor.h"
#include "topology/cluster_spec.h"
#include "topology/topology.h"

namespace topotune::cli {

Expected<MeasureLayout> make_measure_layout(const std::string& cluster_file, int ranks_per_node,
                                            const std::vector<std::string>& rank_hosts) {
  MeasureLayout l;
  l.cluster_file = cluster_file;
  const int ranks = static_cast<int>(rank_hosts.size());
  if (!cluster_file.empty()) {
    // The cluster file decides the layout; it must match what mpirun launched.
    TT_TRY(topo::ClusterSpec spec, topo::load_cluster_file(cluster_file));
    const int gpus = spec.instance.num_gpus;
    if (spec.hosts * gpus != ranks) {
      return fail(Errc::InvalidArgument, cluster_file + " describes " + std::to_string(spec.hosts) +
                                             " hosts x " + std::to_string(gpus) + " ranks, but " +
                                             std::to_string(ranks) + " ranks were launched");
    }
    if (ranks_per_node > 0 && ranks_per_node != gpus) {
      return fail(Errc::InvalidArgument, "--ranks-per-node disagrees with " + cluster_file);
    }
    ranks_per_node = gpus;
  }
  if (ranks_per_node <= 0) {
    const auto distinct = std::set<std::string>(rank_hosts.begin(), rank_hosts.end()).size();
    ranks_per_node = ranks / static_cast<int>(distinct);
  }
  if (ranks_per_node < 1 || ranks % ranks_per_node != 0) {
    return fail(Errc::InvalidArgument, std::to_string(ranks) + " ranks do not fill hosts of " +
                                           std::to_string(ranks_per_node) + " ranks");
  }
  l.ranks_per_node = ranks_per_node;
  l.hosts = ranks / ranks_per_node;
  return l;
}

namespace {

// The names `validate --measured` reads back: one mapping for both (tune::measured_algorithm:
// "ps:cpu" / "ps:colocated" select the parameter server's placement; a planner label
// ("hierarchical(rhd)", "ps(k=2)", "ring/ch4", as `topotune plan` prints them) is generated
// exactly as the planner timed it; "hierarchical:tree" is the registry's own syntax). `mpi`
// and `nccl` never get here: they are libraries' own calls. Sets `channels` to the channel
// count the schedule's layout needs.
Expected<std::unique_ptr<algo::Algorithm>> algorithm_for(const std::string& name,
                                                         const MeasureLayout& layout,
                                                         int& channels) {
  TT_TRY(const tune::MeasuredAlgorithm a,
         tune::measured_algorithm(name, layout.channels, layout.chunks));
  channels = a.options.channels;
  return tune::make_measured_algorithm(a, sched::Collective::Allreduce);
}

}  // namespace

Expected<sched::Schedule> make_measure_schedule(const std::string& algorithm,
                                                const sched::CollectiveSpec& spec,
                                                const MeasureLayout& layout) {
  int channels = 1;
  TT_TRY(std::unique_ptr<algo::Algorithm> a, algorithm_for(algorithm, layout, channels));
  algo::RankLayout ranks;
  if (!layout.cluster_file.empty()) {
    TT_TRY(topo::ClusterSpec cs, topo::load_cluster_file(layout.cluster_file));
    TT_TRY(topo::Topology t, topo::build_topology(cs));
    TT_TRY(ranks, algo::layout_from_topology(t, channels));
  } else {
    TT_TRY(ranks, algo::flat_layout(spec.ranks, layout.ranks_per_node));
  }
  return a->generate(spec, ranks).context(algorithm);
}

}  // namespace topotune::cli
