// The work of `topotune predict --instance p5.48xlarge --nodes 1024 --sizes 8:16G --explain`:
// the catalog lookup, the NCCL model for every size (all candidates evaluated, as --explain
// reports them), for 1024 nodes (8192 ranks). The target is under a second.

#include <benchmark/benchmark.h>

#include "algorithms/nccl/nccl_predictor.h"
#include "core/quantity_parse.h"
#include "topology/cluster_spec.h"

namespace {

using namespace topotune;

void BM_PredictSweep1024Nodes(benchmark::State& state) {
  const auto sizes = parse_size_list("8:16G").value();  // 32 sizes
  for (auto _ : state) {
    const topo::ClusterSpec spec = topo::make_cluster_spec("p5.48xlarge", 1024).value();
    const algo::NcclSystem sys = algo::nccl_system_from_cluster(spec).value();
    const algo::NcclPredictor pred(sys, algo::default_params(), {});
    double total = 0;
    for (const Bytes b : sizes) {
      total += pred.predict(sched::Collective::Allreduce, b, /*explain=*/true).value().busbw_GBps;
    }
    benchmark::DoNotOptimize(total);
  }
  state.counters["sizes"] = static_cast<double>(sizes.size());
}
BENCHMARK(BM_PredictSweep1024Nodes)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
