#include "timing/collective_simulation.h"

#include <utility>

namespace topotune::tune {

Expected<CollectiveSimulation> simulate_collective(const algo::Algorithm& algorithm,
                                                   const sched::CollectiveSpec& spec,
                                                   const algo::RankLayout& layout,
                                                   const topo::Topology& topology,
                                                   const sim::SimOptions& options,
                                                   Generation generation) {
  CollectiveSimulation out;
  out.algorithm = algorithm.name();
  const sim::Simulator simulator(topology, options);
  // The translation the simulator will use (TopologyNetwork::translation): a period short of
  // every host.
  const int period = topology.host_period();
  const bool full = generation == Generation::Full;
  if (options.exploit_symmetry && !full && period > 0 && period < topology.num_hosts()) {
    TT_TRY(std::optional<sched::ReducedSchedule> reduced,
           algorithm.generate_reduced(spec, layout, period));
    if (reduced) {
      TT_TRY(out.result, simulator.run(*reduced));
      out.transfers = reduced->full_size();
      out.simulated = static_cast<std::int64_t>(reduced->representatives.size());
      out.reduced_at_generation = true;
      return out;
    }
  }
  if (generation == Generation::ReducedOnly) {
    return fail(Errc::Unsupported, out.algorithm +
                                       " has no schedule reduced by the fabric's symmetry here, "
                                       "and its full schedule is too large to simulate");
  }
  TT_TRY(sched::Schedule schedule, algorithm.generate(spec, layout));
  TT_TRY(out.result, simulator.run(schedule));
  out.transfers = static_cast<std::int64_t>(schedule.size());
  out.simulated = out.transfers / out.result.symmetry;
  out.schedule = std::move(schedule);
  return out;
}

}  // namespace topotune::tune
