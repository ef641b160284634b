// The planner end to end (profile load, cluster shape, screen, simulator rank, baselines,
// Horovod sweep, JSON): `topotune plan --instance p4d.24xlarge --nodes 4` must stay well under
// 1 s and --nodes 1024 under 30 s; the sharded planner (`--framework fsdp`) for a 70B model on
// 1024 x p5.48xlarge under 10 s. The CLI's wall time adds process start only.

#include <benchmark/benchmark.h>

#include <optional>
#include <string>

#include "planning/plan.h"
#include "planning/sharded_plan.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {
namespace {

// The plan's inputs for `instance` x state.range(0) nodes and `model`; nullopt (the state
// skipped with why) if they cannot be built.
std::optional<PlanInputs> bench_inputs(benchmark::State& state, const char* instance,
                                       const char* model) {
  const int nodes = static_cast<int>(state.range(0));
  auto spec = topo::make_cluster_spec(instance, nodes);
  auto profile = load_model_profile(model);
  if (!spec || !profile) {
    state.SkipWithError("cannot load the instance or the model");
    return std::nullopt;
  }
  PlanInputs in;
  if (!set_plan_cluster(in, *spec, std::string("\"") + instance + "\"")) {
    state.SkipWithError("cannot record the cluster");
    return std::nullopt;
  }
  in.model = *profile;
  return in;
}

void BM_Plan(benchmark::State& state, const char* instance, const char* model) {
  std::optional<PlanInputs> inputs = bench_inputs(state, instance, model);
  if (!inputs) return;
  const PlanInputs& in = *inputs;
  for (auto _ : state) {
    auto plan = make_plan(in);
    if (!plan) {
      state.SkipWithError(plan.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(plan_to_json(*plan));
  }
}

// The sharded ranking (FSDP2, HSDP, ZeRO x prefetch x reshard x recompute), as
// `topotune plan --framework fsdp` computes it, JSON included.
void BM_ShardedPlan(benchmark::State& state, const char* instance, const char* model) {
  std::optional<PlanInputs> inputs = bench_inputs(state, instance, model);
  if (!inputs) return;
  PlanInputs& in = *inputs;
  in.compute.batch_per_gpu = 1;  // the CLI's default for sharded plans: one sequence per GPU
  for (auto _ : state) {
    auto plan = make_sharded_plan(in);
    if (!plan) {
      state.SkipWithError(plan.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(sharded_plan_to_json(*plan));
  }
}

BENCHMARK_CAPTURE(BM_Plan, p4d_bert_large, "p4d.24xlarge", "bert-large")
    ->Arg(4)
    ->Arg(32)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Plan, p5_gpt2_xl, "p5.48xlarge", "gpt2-xl")
    ->Arg(4)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ShardedPlan, p5_llama_70b, "p5.48xlarge", "llama-3.1-70b")
    ->Arg(32)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace topotune::tune

BENCHMARK_MAIN();
