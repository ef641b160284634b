// Schedule generation speed: the tuner generates a schedule per candidate, so a ring and a
// hierarchical allreduce for 1024 ranks x 8 channels must take well under a second.
//
//   cmake --build build --target schedule_bench && ./build/bench/schedule_bench
#include <benchmark/benchmark.h>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"

namespace topotune::algo {
namespace {

void generate(benchmark::State& state, const char* name, int ranks, int gpus_per_host) {
  AlgorithmOptions o;
  o.channels = static_cast<int>(state.range(0));
  sched::CollectiveSpec spec;
  spec.ranks = ranks;
  spec.bytes = Bytes(1LL << 30);
  const RankLayout layout = flat_layout(ranks, gpus_per_host).value();
  const auto algo = make_algorithm(name, o).value();
  std::size_t transfers = 0;
  for (auto _ : state) {
    auto s = algo->generate(spec, layout);
    transfers = s->size();
    benchmark::DoNotOptimize(s->transfers().data());
  }
  state.counters["transfers"] = static_cast<double>(transfers);
  state.counters["transfers/s"] = benchmark::Counter(static_cast<double>(transfers),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}

// 1024 ranks as 1024 hosts of one GPU: one flat ring per channel.
void BM_RingAllreduce1024(benchmark::State& state) { generate(state, "ring", 1024, 1); }
// 1024 ranks as 128 hosts x 8 GPUs: intra-host rings, rail rings across hosts.
void BM_Hierarchical128x8(benchmark::State& state) { generate(state, "hierarchical", 1024, 8); }

BENCHMARK(BM_RingAllreduce1024)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Hierarchical128x8)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace topotune::algo

BENCHMARK_MAIN();
