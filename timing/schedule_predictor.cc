#include "timing/schedule_predictor.h"

#include "algorithms/bruck_allgather.h"
#include "algorithms/neighbor_exchange_allgather.h"
#include "algorithms/open_mpi_decision.h"
#include "algorithms/registry.h"
#include "simulator/simulator.h"
#include "timing/schedule_algorithm.h"

namespace topotune::tune {
namespace {

// Rank order bitrev(0..n-1) when n is a power of two (else the identity).
std::vector<RankId> bit_reversed(int n) {
  int bits = 0;
  while ((1 << bits) < n) ++bits;
  std::vector<RankId> order;
  for (int v = 0; v < n; ++v) {
    int r = v;
    if ((1 << bits) == n) {
      r = 0;
      for (int b = 0; b < bits; ++b) r |= ((v >> b) & 1) << (bits - 1 - b);
    }
    order.push_back(RankId(r));
  }
  return order;
}

// Open MPI runs `algorithm` for `what` here, and topotune has no schedule of it.
Unexpected no_open_mpi_schedule(const char* what, const char* algorithm) {
  return fail(Errc::Unsupported, std::string("Open MPI's ") + what + " runs its " + algorithm +
                                     " algorithm here (coll/tuned 4.1.4), which has no schedule "
                                     "in topotune");
}

}  // namespace

Expected<MeasuredAlgorithm> measured_algorithm(const std::string& name, int channels, int chunks) {
  MeasuredAlgorithm a;
  a.options.channels = channels;
  a.options.chunks = chunks;
  a.registry_name = name;
  if (name == "nccl") {
    return fail(Errc::InvalidArgument,
                "'nccl' rows are NCCL's own allreduce: the NCCL predictor "
                "answers them, not a schedule");
  }
  if (is_planner_label(name)) {
    TT_TRY(AlgorithmChoice choice, parse_algorithm_choice(name));
    if (choice.channels == 0) choice.channels = channels;  // as `measure` reads a label
    a.options.channels = choice.channels;
    a.planner = choice;
    TT_TRY_VOID(make_schedule_algorithm(choice));
    return a;
  }
  if (name == "mpi") {
    a.registry_name = "rhd";
    a.open_mpi = true;
  } else if (name.rfind("ps:", 0) == 0) {
    TT_TRY(a.options.ps_placement, algo::parse_ps_placement(name.substr(3)));
    a.registry_name = "ps";
  }
  // Resolving now reports an unknown name here rather than at the first size.
  TT_TRY_VOID(algo::make_algorithm(a.registry_name, a.options));
  return a;
}

Expected<std::unique_ptr<algo::Algorithm>> make_measured_algorithm(
    const MeasuredAlgorithm& a, const sched::CollectiveSpec& spec) {
  const sched::Collective collective = spec.collective;
  const bool gather =
      collective == sched::Collective::ReduceScatter || collective == sched::Collective::Allgather;
  if (a.open_mpi && gather) {
    // Ring on one channel in rank order (measured_layout); recursive halving is topotune's rhd
    // reduce-scatter (coll_base_reduce_scatter.c basic_recursivehalving folds rank 2i into
    // 2i+1 for the first n - p pairs, halves from distance p/2 keeping the lower half, and
    // sends block 2i back: halving_doubling_half.h, step for step); Open MPI's neighbor
    // exchange, Bruck and two-process exchange (a ring of two) as schedules of their own; the
    // rest (butterfly, non-overlapping, gatherv + broadcast) has none here.
    const algo::AlgorithmOptions one;
    if (collective == sched::Collective::ReduceScatter) {
      const algo::OmpiReduceScatter alg =
          algo::open_mpi_reduce_scatter(spec.ranks, spec.bytes.value);
      if (alg == algo::OmpiReduceScatter::Ring) {
        return algo::make_algorithm("ring", one, collective);
      }
      if (alg == algo::OmpiReduceScatter::RecursiveHalving) {
        return algo::make_algorithm("rhd", one, collective);
      }
      return no_open_mpi_schedule("reduce-scatter", algo::open_mpi_name(alg));
    }
    const algo::OmpiAllgatherv alg = algo::open_mpi_allgatherv(spec.ranks, spec.bytes.value);
    if (alg == algo::OmpiAllgatherv::Ring || alg == algo::OmpiAllgatherv::TwoProc) {
      return algo::make_algorithm("ring", one, collective);
    }
    if (alg == algo::OmpiAllgatherv::Neighbor) {
      return std::unique_ptr<algo::Algorithm>(
          std::make_unique<algo::NeighborExchangeAllgather>(one));
    }
    if (alg == algo::OmpiAllgatherv::Bruck) {
      return std::unique_ptr<algo::Algorithm>(std::make_unique<algo::BruckAllgather>(one));
    }
    return no_open_mpi_schedule("allgather (MPI_Allgatherv)", algo::open_mpi_name(alg));
  }
  if ((a.open_mpi || a.planner) && collective != sched::Collective::Allreduce) {
    return fail(Errc::Unsupported,
                "the Open MPI model covers allreduce, reduce-scatter and allgather; planner "
                "labels allreduce only");
  }
  if (a.planner) return make_schedule_algorithm(*a.planner);
  return algo::make_algorithm(a.registry_name, a.options, collective);
}

algo::RankLayout measured_layout(const MeasuredAlgorithm& a, const algo::RankLayout& layout,
                                 sched::Collective collective) {
  if (!a.open_mpi) return layout;
  if (collective != sched::Collective::Allreduce) return algo::in_rank_order(layout);
  algo::RankLayout out = layout;
  out.rings = {bit_reversed(layout.ranks())};
  return out;
}

std::string open_mpi_model_name(const sched::CollectiveSpec& spec) {
  switch (spec.collective) {
    case sched::Collective::ReduceScatter:
      return std::string(
                 algo::open_mpi_name(algo::open_mpi_reduce_scatter(spec.ranks, spec.bytes.value))) +
             " (Open MPI model)";
    case sched::Collective::Allgather:
      return std::string(
                 algo::open_mpi_name(algo::open_mpi_allgatherv(spec.ranks, spec.bytes.value))) +
             " (Open MPI model)";
    default:
      return "rhd (Open MPI model)";
  }
}

Expected<SchedulePredictor> SchedulePredictor::create(const topo::ClusterSpec& spec, int channels,
                                                      int chunks, algo::MemoryBudget memory) {
  SchedulePredictor p;
  p.memory_ = memory;
  TT_TRY(p.topology_, topo::build_topology(spec));
  TT_TRY(p.layout_, algo::layout_from_topology(p.topology_, channels));
  p.channels_ = channels;
  p.chunks_ = chunks;
  return p;
}

Expected<sim::SimResult> SchedulePredictor::simulate(const std::string& algorithm,
                                                     const sched::CollectiveSpec& spec) const {
  TT_TRY(MeasuredAlgorithm a, measured_algorithm(algorithm, channels_, chunks_));
  a.options.memory = memory_;
  TT_TRY(const std::unique_ptr<algo::Algorithm> gen, make_measured_algorithm(a, spec));
  TT_TRY(const algo::RankLayout layout, layout_for(a.options.channels));
  TT_TRY(const sched::Schedule schedule,
         gen->generate(spec, measured_layout(a, layout, spec.collective)));
  return sim::Simulator(topology_).run(schedule);
}

Expected<algo::RankLayout> SchedulePredictor::layout_for(int channels) const {
  if (channels == channels_) return layout_;
  return algo::layout_from_topology(topology_, channels);  // a planner label's own count
}

Expected<Seconds> SchedulePredictor::time(const std::string& algorithm,
                                          const sched::CollectiveSpec& spec) const {
  TT_TRY(const sim::SimResult result, simulate(algorithm, spec));
  return result.makespan;
}

}  // namespace topotune::tune
