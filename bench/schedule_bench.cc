// Schedule generation speed: the tuner generates a schedule per candidate, so a ring and a
// hierarchical allreduce for 1024 ranks x 8 channels must take well under a second.
//
//   cmake --build build --target schedule_bench && ./build/bench/schedule_bench
//
// One iteration of a case in a fresh process is the cold figure (its arrays land on pages
// never touched before); docs/algorithms.md "Performance" has the protocol and the figures.
#include <benchmark/benchmark.h>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"

namespace topotune::algo {
namespace {

// Arguments: ranks, GPUs per host, channels.
void generate(benchmark::State& state, const char* name) {
  const int ranks = static_cast<int>(state.range(0));
  AlgorithmOptions o;
  o.channels = static_cast<int>(state.range(2));
  sched::CollectiveSpec spec;
  spec.ranks = ranks;
  spec.bytes = Bytes(1LL << 30);
  const RankLayout layout = flat_layout(ranks, static_cast<int>(state.range(1))).value();
  const auto algo = make_algorithm(name, o).value();
  std::size_t transfers = 0, deps = 0;
  for (auto _ : state) {
    auto s = algo->generate(spec, layout);
    transfers = s->size();
    deps = s->num_deps();
    benchmark::DoNotOptimize(s->transfers().data());
  }
  state.counters["transfers"] = static_cast<double>(transfers);
  state.counters["MB"] =
      static_cast<double>(transfers * sizeof(sched::Transfer) + deps * sizeof(TransferId)) / 1e6;
  state.counters["transfers/s"] = benchmark::Counter(static_cast<double>(transfers),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}

// Ring allreduce; gpus_per_host 1: 1024 hosts of one GPU, one flat ring per channel.
void BM_Ring(benchmark::State& state) { generate(state, "ring"); }
// Hierarchical allreduce (inner ring); 1024 ranks = 128 hosts x 8 GPUs: intra-host rings,
// one rail ring of 128 hosts per GPU index, both on every channel.
void BM_Hierarchical(benchmark::State& state) { generate(state, "hierarchical"); }

BENCHMARK(BM_Ring)
    ->ArgNames({"ranks", "gpus_per_host", "channels"})
    ->Args({1024, 1, 1})
    ->Args({1024, 1, 8})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Hierarchical)
    ->ArgNames({"ranks", "gpus_per_host", "channels"})
    ->Args({1024, 8, 1})
    ->Args({1024, 8, 8})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace topotune::algo

BENCHMARK_MAIN();
