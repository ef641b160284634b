#include "simulator/simulator.h"

#include <optional>
#include <utility>

#include "simulator/flow_engine.h"
#include "simulator/symmetry.h"

namespace topotune::sim {

Simulator::Simulator(const NetworkModel& network, SimOptions options)
    : network_(&network), options_(options) {}

// Simulator(const topo::Topology&) is defined in topology_network.cc, so that programs that
// simulate only hand-built networks do not link the topology module.

Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

namespace {

void set_bandwidths(SimResult& result) {
  if (result.makespan.value <= 0) return;
  const sched::CollectiveSpec& spec = result.spec;
  result.algbw = spec.bytes / result.makespan;
  result.busbw = result.algbw * sched::busbw_factor(spec.collective, spec.ranks);
}

}  // namespace

Expected<SimResult> Simulator::run(const sched::Schedule& schedule) const {
  std::optional<Quotient> quotient;
  if (options_.exploit_symmetry) quotient = quotient_by_translation(schedule, *network_);
  if (quotient) {
    TT_TRY(SimResult result, run(quotient->reduced));
    expand_transfers(result, *quotient);
    return result;
  }
  SimResult result;
  result.spec = schedule.spec();
  FlowEngine engine(*network_, options_, schedule);
  TT_TRY_VOID(engine.run(result).context("simulating " + schedule.algorithm()));
  set_bandwidths(result);
  return result;
}

Expected<SimResult> Simulator::run(const sched::ReducedSchedule& reduced) const {
  const sched::Schedule& reps = reduced.representatives;
  TT_TRY_VOID(check_reduced(reduced, *network_).context("simulating " + reps.algorithm()));
  const QuotientNetwork quotient_network(*network_);
  SimResult result;
  result.spec = reps.spec();
  FlowEngine engine(quotient_network, options_, reps);
  TT_TRY_VOID(engine.run(result).context("simulating " + reps.algorithm()));
  result = expand_links(std::move(result), reduced.orbit_size, *network_);
  set_bandwidths(result);
  return result;
}

}  // namespace topotune::sim
