// Simulator speed: simulated transfers per second and wall time of one 1 GiB allreduce on N
// hosts of p4d.24xlarge (8 GPUs each), flat ring and hierarchical (bench_schedules.h), plus the
// process's peak RSS. After the runs it prints how the time per transfer grows between
// successive sizes: the simulator's cost must grow no faster than about linearly in transfers.
//
// Network: the catalog's p4d.24xlarge (topo::load_instance, cluster placement: one
// non-blocking switch; 4 x 100 Gbps EFA, GPUDirect RDMA, NVSwitch), with the ring orders the
// topology discovers (ring_order(), intra_host_ring()).
//
// Run: build/bench/simulator_bench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "bench/bench_schedules.h"
#include "simulator/simulator.h"
#include "topology/topology.h"

namespace topotune::bench {
namespace {

constexpr Bytes kSize = 1_GiB;
constexpr int kGpus = 8;  // p4d.24xlarge
// A flat ring's schedule at this many ranks would not fit the memory target: 8192 ranks give
// 2 x 8191 x 8192 = 134M transfers x (32 B schedule + 4 B dependency + 24 B simulator state)
// ~ 8 GB, against a 2 GiB target.
constexpr std::int64_t kMaxFlatRingRanks = 4096;

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux reports KiB
}

enum class Algo { Ring, Hierarchical };
const char* algo_name(Algo a) { return a == Algo::Ring ? "ring" : "hierarchical"; }

struct Measured {
  double transfers = 0;
  double wall_s = 0;  ///< per simulation
  double cpu_s = 0;   ///< per simulation (process CPU time: the benchmark is single-threaded)
};

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
// (algo, hosts) -> last measurement, for the growth table printed after the runs.
std::map<std::pair<int, int>, Measured>& measurements() {
  static std::map<std::pair<int, int>, Measured> m;
  return m;
}

// The topology and schedule of the current benchmark, kept across the calls Google Benchmark
// makes for one benchmark (building an 8M-transfer ring takes seconds), released when the
// benchmark changes.
struct Case {
  topo::Topology topology;
  sched::Schedule schedule;
  double build_s = 0;  ///< topology + schedule construction
};

const Case& case_for(Algo algo, int hosts) {
  static std::pair<int, int> key{-1, -1};
  static std::unique_ptr<Case> cached;
  if (key != std::pair<int, int>{static_cast<int>(algo), hosts}) {
    cached.reset();
    const auto t0 = std::chrono::steady_clock::now();
    topo::Topology t = topo::load_instance("p4d.24xlarge", hosts).value();
    TT_ASSERT(t.gpus_per_host() == kGpus, "p4d.24xlarge has %d GPUs", t.gpus_per_host());
    std::vector<int> order;
    if (algo == Algo::Ring) {
      for (RankId r : t.ring_order()) order.push_back(r.value);
    } else {
      order = t.intra_host_ring();
    }
    sched::Schedule s = algo == Algo::Ring ? ring_allreduce(order, kSize)
                                           : hierarchical_allreduce(hosts, order, kSize);
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cached = std::make_unique<Case>(Case{std::move(t), std::move(s), dt});
    key = {static_cast<int>(algo), hosts};
  }
  return *cached;
}

void run(benchmark::State& state, Algo algo) {
  const int hosts = static_cast<int>(state.range(0));
  if (algo == Algo::Ring && static_cast<std::int64_t>(hosts) * kGpus > kMaxFlatRingRanks) {
    const std::string why =
        "skipped: flat ring at " + std::to_string(hosts * kGpus) +
        " ranks is 2(n-1)n = " + std::to_string(2.0 * (hosts * kGpus - 1) * hosts * kGpus / 1e6) +
        "M transfers, ~8 GB of schedule + state, over the 2 GiB target";
    state.SkipWithError(why.c_str());
    return;
  }
  const Case& c = case_for(algo, hosts);
  const sched::Schedule& schedule = c.schedule;
  const sim::Simulator simulator(c.topology);
  double makespan = 0, wall = 0, cpu = 0;
  std::uint64_t events = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    auto result = simulator.run(schedule);
    cpu += cpu_seconds() - c0;
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!result) {
      state.SkipWithError(result.error().message.c_str());
      return;
    }
    makespan = result->makespan.value;
    events = result->events;
    benchmark::DoNotOptimize(result);
  }
  const auto transfers = static_cast<double>(schedule.size());
  state.counters["transfers"] = transfers;
  state.counters["transfers/s"] =
      benchmark::Counter(transfers, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["events"] = static_cast<double>(events);
  state.counters["sim_time_ms"] = makespan * 1e3;
  state.counters["busbw_GBps"] =
      kSize.as_double() / makespan * 2.0 * (hosts * kGpus - 1) / (hosts * kGpus) / 1e9;
  state.counters["build_s"] = c.build_s;
  state.counters["peak_rss_MiB"] = peak_rss_mib();
  const auto n = static_cast<double>(state.iterations());
  measurements()[{static_cast<int>(algo), hosts}] = {transfers, wall / n, cpu / n};
}

void BM_RingAllreduce1GiB(benchmark::State& state) { run(state, Algo::Ring); }
void BM_HierarchicalAllreduce1GiB(benchmark::State& state) { run(state, Algo::Hierarchical); }

BENCHMARK(BM_RingAllreduce1GiB)
    ->ArgName("hosts")
    ->RangeMultiplier(4)
    ->Range(1, 1024)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.2);
BENCHMARK(BM_HierarchicalAllreduce1GiB)
    ->ArgName("hosts")
    ->RangeMultiplier(4)
    ->Range(1, 1024)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.2);

void print_growth() {
  std::printf(
      "\nGrowth between successive sizes: x_t = transfers ratio; x_cpu, x_wall = time ratios;\n"
      "cost per transfer = x_cpu / x_t (1.0 = linear in transfers). CPU time is the one to\n"
      "read on a shared machine: wall time includes waiting for the cores.\n");
  std::printf("%-13s %6s %10s %9s %9s %7s %7s %7s %9s\n", "algorithm", "hosts", "transfers",
              "cpu_s", "wall_s", "x_t", "x_cpu", "x_wall", "x_cpu/x_t");
  for (int a = 0; a < 2; ++a) {
    const Measured* prev = nullptr;
    for (const auto& [key, m] : measurements()) {
      if (key.first != a) continue;
      std::printf("%-13s %6d %10.0f %9.4f %9.4f", algo_name(Algo(a)), key.second, m.transfers,
                  m.cpu_s, m.wall_s);
      if (prev) {
        const double xt = m.transfers / prev->transfers, xc = m.cpu_s / prev->cpu_s;
        std::printf(" %7.2f %7.2f %7.2f %9.2f\n", xt, xc, m.wall_s / prev->wall_s, xc / xt);
      } else {
        std::printf(" %7s %7s %7s %9s\n", "-", "-", "-", "-");
      }
      prev = &m;
    }
  }
  std::printf("peak RSS of the whole run: %.0f MiB\n", peak_rss_mib());
}

}  // namespace
}  // namespace topotune::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  topotune::bench::print_growth();
  return 0;
}
