// The JSON readers at their documented limits (docs/limits.md): a measurement of 2^16..2^20
// rows and a model profile of 2^16..2^20 layers, from text to the checked value. The reported
// seconds per row must stay flat (within 2x from 2^16 to 2^20): the callback parser the
// readers used before was quadratic in the number of objects (2^18 empty objects: 128 s).

#include <benchmark/benchmark.h>

#include <string>

#include "measurement/measurement.h"
#include "planning/model_profile.h"

namespace topotune {
namespace {

std::string measurement_text(std::int64_t rows) {
  std::string text =
      R"({"schema": "topotune.measurement/1", "backend": "nccl", "ranks": 16, "rows": [)";
  for (std::int64_t i = 0; i < rows; ++i) {
    text += (i == 0 ? "" : ",");
    text += R"({"algorithm":"ring","bytes":)" + std::to_string(4 * (i + 1)) + R"(,"time_us":12.5})";
  }
  return text + "]}";
}

std::string profile_text(std::int64_t layers) {
  std::string text = R"({"schema": "topotune.model_profile/1", "name": "wide", "layers": [)";
  for (std::int64_t i = 0; i < layers; ++i) {
    text += (i == 0 ? "" : ",");
    text += R"({"name":"l)" + std::to_string(i) + R"(","forward_flops":1e9})";
  }
  return text + R"(], "params": [{"name": "w", "numel": 1024, "layer": 0}]})";
}

// Seconds per row (or layer), the figure whose ratio across sizes shows linear time.
void per_row(benchmark::State& state) {
  state.counters["s_per_row"] = benchmark::Counter(
      static_cast<double>(state.range(0)),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_MeasurementRows(benchmark::State& state) {
  const std::string text = measurement_text(state.range(0));
  for (auto _ : state) {
    auto m = rt::measurement_from_json(text, "bench.json");
    if (!m) {
      state.SkipWithError(m.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(m->rows.data());
  }
  state.counters["MiB"] = static_cast<double>(text.size()) / (1 << 20);
  per_row(state);
}

void BM_ProfileLayers(benchmark::State& state) {
  const std::string text = profile_text(state.range(0));
  for (auto _ : state) {
    auto m = tune::parse_model_profile(text, "bench.json");
    if (!m) {
      state.SkipWithError(m.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(m->layers.data());
  }
  state.counters["MiB"] = static_cast<double>(text.size()) / (1 << 20);
  per_row(state);
}

BENCHMARK(BM_MeasurementRows)
    ->RangeMultiplier(4)
    ->Range(1 << 16, 1 << 20)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProfileLayers)
    ->RangeMultiplier(4)
    ->Range(1 << 16, 1 << 20)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace topotune

BENCHMARK_MAIN();
