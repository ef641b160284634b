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

Expected<SimResult> Simulator::run(const sched::Schedule& schedule) const {
  SimResult result;
  result.spec = schedule.spec();
  std::optional<Quotient> quotient;
  if (options_.exploit_symmetry) quotient = quotient_by_translation(schedule, *network_);
  if (quotient) {
    const QuotientNetwork reduced_network(*network_);
    SimResult reduced;
    reduced.spec = schedule.spec();
    FlowEngine engine(reduced_network, options_, quotient->schedule);
    TT_TRY_VOID(engine.run(reduced).context("simulating " + schedule.algorithm()));
    result = expand_quotient(std::move(reduced), *quotient, *network_, options_.record_transfers);
  } else {
    FlowEngine engine(*network_, options_, schedule);
    TT_TRY_VOID(engine.run(result).context("simulating " + schedule.algorithm()));
  }
  if (result.makespan.value > 0) {
    result.algbw = schedule.spec().bytes / result.makespan;
    const sched::CollectiveSpec& spec = schedule.spec();
    result.busbw = result.algbw * sched::busbw_factor(spec.collective, spec.ranks);
  }
  return result;
}

}  // namespace topotune::sim
