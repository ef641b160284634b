#include "autotune/simulator_timer.h"

#include <algorithm>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "simulator/simulator.h"

namespace topotune::tune {
namespace {

Expected<std::unique_ptr<algo::Algorithm>> make(const AlgorithmChoice& a) {
  algo::AlgorithmOptions o;
  o.channels = std::max(1, a.channels);
  o.ps_placement = algo::PsPlacement::Cpu;
  o.shards = a.servers;
  switch (a.kind) {
    case AlgoKind::HalvingDoubling: return algo::make_algorithm("rhd", o);
    case AlgoKind::ParameterServer: return algo::make_algorithm("ps", o);
    case AlgoKind::Hierarchical:
      o.inner = a.inner == AlgoKind::Tree              ? algo::InnerAlgorithm::Tree
                : a.inner == AlgoKind::HalvingDoubling ? algo::InnerAlgorithm::Rhd
                : a.inner == AlgoKind::ParameterServer ? algo::InnerAlgorithm::Ps
                                                       : algo::InnerAlgorithm::Ring;
      return algo::make_algorithm("hierarchical", o);
    default: return fail(Errc::Internal, "not a topotune schedule: " + a.name());
  }
}

}  // namespace

SimulatorTimer::SimulatorTimer(topo::Topology topology, const CollectiveTimer& nccl_like,
                               Bytes max_bytes)
    : topology_(std::move(topology)), nccl_like_(nccl_like) {
  for (Bytes b = 1_MiB;; b = b * 8) {
    samples_.push_back(b);
    if (b >= max_bytes) break;
  }
}

Expected<std::unique_ptr<SimulatorTimer>> SimulatorTimer::create(const topo::ClusterSpec& spec,
                                                                 const CollectiveTimer& nccl_like,
                                                                 Bytes max_bytes, int max_ranks) {
  const int ranks = spec.hosts * spec.instance.num_gpus;
  if (ranks > max_ranks) {
    return fail(Errc::Unsupported, std::to_string(ranks) + " ranks is above the " +
                                       std::to_string(max_ranks) + " the planner simulates");
  }
  TT_TRY(topo::Topology t, topo::build_topology(spec));
  return std::unique_ptr<SimulatorTimer>(new SimulatorTimer(std::move(t), nccl_like, max_bytes));
}

std::string SimulatorTimer::name() const {
  return "flow simulator (ring/tree/nccl-default: " + nccl_like_.name() + ")";
}

Expected<Seconds> SimulatorTimer::simulate(const AlgorithmChoice& a, Bytes bytes) const {
  TT_TRY(const std::unique_ptr<algo::Algorithm> alg, make(a));
  TT_TRY(const algo::RankLayout layout,
         algo::layout_from_topology(topology_, std::max(1, a.channels)));
  sched::CollectiveSpec spec;
  spec.ranks = layout.ranks();
  spec.bytes = bytes;
  TT_TRY(const sched::Schedule schedule, alg->generate(spec, layout));
  sim::SimOptions options;
  options.record_transfers = false;
  TT_TRY(const sim::SimResult r, sim::Simulator(topology_, options).run(schedule));
  ++simulations_;
  return r.makespan;
}

Expected<Seconds> SimulatorTimer::allreduce(const AlgorithmChoice& a, Bytes bytes) const {
  if (a.kind == AlgoKind::NcclDefault || a.kind == AlgoKind::Ring || a.kind == AlgoKind::Tree) {
    return nccl_like_.allreduce(a, bytes);
  }
  if (bytes.value <= 0) return Seconds(0);
  auto it = sampled_.find(a);
  if (it == sampled_.end()) {
    std::vector<Seconds> times;
    for (Bytes s : samples_) {
      TT_TRY(const Seconds t, simulate(a, s));
      times.push_back(t);
    }
    it = sampled_.emplace(a, std::move(times)).first;
  }
  const std::vector<Seconds>& t = it->second;
  // Piecewise linear through the samples; the first and last segments extend outwards.
  std::size_t i = 1;
  while (i + 1 < samples_.size() && bytes > samples_[i]) ++i;
  if (samples_.size() == 1) return t[0] * (bytes.as_double() / samples_[0].as_double());
  const double x0 = samples_[i - 1].as_double(), x1 = samples_[i].as_double();
  const double slope = (t[i].value - t[i - 1].value) / (x1 - x0);
  return Seconds(std::max(0.0, t[i - 1].value + slope * (bytes.as_double() - x0)));
}

}  // namespace topotune::tune
