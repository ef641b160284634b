// What `topotune simulate` runs on a cluster with a translation symmetry: the generator writes
// the reduced schedule (Algorithm::generate_reduced) and the simulator runs its
// representatives (Simulator::run(ReducedSchedule)), 1 GiB fp32 allreduce on the catalog's
// p4d.24xlarge, cluster placement, the default (serial) reduction. The ring keeps the
// transfers' timings as simgrid_bench's 'dir' column does (it compares them with SimGrid's);
// the hierarchical does not, as simulate without --trace. The two timed parts are reported apart
// (generate_ms, simulate_ms, per iteration), with the representatives, the events and the simulated
// time.
//
// Targets (on the 2-core development machine): ring on 64 hosts (512 ranks) fast
// enough for >= 100x SimGrid's 3.3-3.6 s in simgrid_bench (<= 33 ms), hierarchical(ring) on
// 1024 hosts (8,192 ranks) well under 1 s (the whole `simulate` command, whose process start
// and catalog load add ~20 ms).
//
// Run: build/bench/reduced_bench --benchmark_counters_tabular=true [--benchmark_repetitions=3]

#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "simulator/simulator.h"
#include "topology/topology.h"

namespace topotune::bench {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void BM_SimulateReduced(benchmark::State& state, const char* algorithm_name, bool record) {
  const int hosts = static_cast<int>(state.range(0));
  auto topology = topo::load_instance("p4d.24xlarge", hosts);
  if (!topology) {
    state.SkipWithError(topology.error().message.c_str());
    return;
  }
  auto layout = algo::layout_from_topology(*topology, 1);
  auto algorithm = algo::make_algorithm(algorithm_name, algo::AlgorithmOptions{});
  if (!layout || !algorithm) {
    state.SkipWithError("cannot build the layout or the algorithm");
    return;
  }
  sched::CollectiveSpec spec;
  spec.ranks = layout->ranks();
  spec.bytes = Bytes(std::int64_t{1} << 30);
  sim::SimOptions options;
  options.record_transfers = record;
  const sim::Simulator simulator(*topology, options);
  double generate = 0, simulate = 0, simulated_ms = 0, representatives = 0, events = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto reduced = (*algorithm)->generate_reduced(spec, *layout, topology->host_period());
    generate += seconds_since(t0);
    if (!reduced || !*reduced) {
      state.SkipWithError("no reduced schedule");
      return;
    }
    const auto t1 = std::chrono::steady_clock::now();
    auto result = simulator.run(**reduced);
    simulate += seconds_since(t1);
    if (!result) {
      state.SkipWithError(result.error().message.c_str());
      return;
    }
    simulated_ms = result->makespan.value * 1e3;
    representatives = static_cast<double>((*reduced)->representatives.size());
    events = static_cast<double>(result->events);
    benchmark::DoNotOptimize(result);
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["generate_ms"] = generate / n * 1e3;
  state.counters["simulate_ms"] = simulate / n * 1e3;
  state.counters["representatives"] = representatives;
  state.counters["events"] = events;
  state.counters["sim_time_ms"] = simulated_ms;
}

BENCHMARK_CAPTURE(BM_SimulateReduced, ring, "ring", true)
    ->ArgName("hosts")
    ->Arg(64)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);
BENCHMARK_CAPTURE(BM_SimulateReduced, hierarchical, "hierarchical", false)
    ->ArgName("hosts")
    ->Arg(64)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

}  // namespace
}  // namespace topotune::bench

BENCHMARK_MAIN();
