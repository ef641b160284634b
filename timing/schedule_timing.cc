#include "timing/schedule_timing.h"

#include <algorithm>

#include "algorithms/cost_params.h"
#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "simulator/simulator.h"
#include "timing/model_timers.h"
#include "topology/topology.h"

namespace topotune::tune {

Expected<ScheduleTimes> schedule_times(const topo::ClusterSpec& spec,
                                       const algo::NcclModelParams& model,
                                       const std::string& algorithm, sched::Collective collective,
                                       const std::vector<Bytes>& sizes, ScheduleTiming timing,
                                       const ScheduleTimingLimits& limits) {
  const bool simulate = timing == ScheduleTiming::Simulated;
  TT_TRY(const auto timers, ModelTimers::create(spec, model));
  TT_TRY(const topo::Topology t, topo::build_topology(spec));
  TT_TRY(const algo::RankLayout layout, algo::layout_from_topology(t, 1));
  const algo::CostParams wire = with_fabric(algo::cost_params_from_topology(t), timers->fabric());
  const ShapeDefaults costs = software_costs(model, timers->system());
  const algo::CostParams params = with_software_costs(wire, costs);
  algo::AlgorithmOptions options;
  // A schedule the simulator would run is refused before it is built when it cannot fit.
  if (simulate) options.memory = limits.schedule;
  TT_TRY(const auto alg, algo::make_algorithm(algorithm, options, collective));
  ScheduleTimes out;
  out.algorithm = alg->name();
  out.ranks = t.num_ranks();
  out.nodes = spec.hosts;
  for (const Bytes b : sizes) {
    sched::CollectiveSpec cs;
    cs.collective = collective;
    cs.ranks = out.ranks;
    cs.bytes = b;
    TT_TRY(Seconds time, alg->closed_form(cs, layout, params));
    if (simulate) {
      // The simulator sees wire latencies only: it pays the same software costs as the
      // closed form (their share of it) on top of its makespan.
      TT_TRY(const Seconds on_wire, alg->closed_form(cs, layout, wire));
      TT_TRY(const sched::Schedule schedule, alg->generate(cs, layout));
      sim::SimOptions sim_options;
      sim_options.memory_limit = limits.simulator;
      TT_TRY(const sim::SimResult result, sim::Simulator(t, sim_options).run(schedule));
      time = result.makespan + Seconds(std::max(0.0, time.value - on_wire.value));
    }
    if (b.value > 0 && out.ranks > 1) time = time + costs.op_latency;
    const double algbw = time.value > 0 ? b.as_double() / time.value / 1e9 : 0.0;
    const double factor = sched::busbw_factor(collective, out.ranks);
    out.rows.push_back({b, time, algbw, algbw * factor});
  }
  return out;
}

}  // namespace topotune::tune
