// topotune's flow simulator against SimGrid, side by side: the same schedule on the
// same network (p4d.24xlarge hosts, cluster placement: one switch up to 32 nodes, then
// rail-optimised 32-node units under a spine, docs/cluster.md) through the SimGrid replay the
// oracle test uses (tests/simulator/simgrid_replay.h: S4U activity DAG, CM02 reduced to plain
// max-min) and through sim::Simulator, at 512 and 4,096 ranks, flat ring and hierarchical(ring)
// allreduce. Prints both wall times, their ratio and the largest relative difference of the
// transfers' completion times. topotune runs three times (fastest kept), with the symmetry
// reduction (the default) and without it (every transfer simulated); SimGrid once. 'orbit' is the
// number of transfers each simulated one stood for; 'sym-full' the largest relative difference
// between the two topotune runs.
//
// The replay's cost grows much faster than its transfer count on these DAGs (on the 2-core
// development machine: 8,064 transfers 18 s; the 512-rank hierarchical(ring), 71,680, and ring,
// 523,264, had not finished after 13 and 6 min of CPU), so a case above the transfer bound
// (default 20,000, argument --max-simgrid-transfers N) is not given to SimGrid: the line says
// so and gives the transfer count. 64 ranks are added to have cases under the bound. Not a
// Google Benchmark: each case is one long run.
//
//   build/bench/simgrid_bench [--max-simgrid-transfers N] [--size BYTES]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "simulator/simulator.h"
#include "simulator/topology_network.h"
#include "tests/simulator/simgrid_replay.h"
#include "topology/topology.h"

namespace topotune {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

struct TopotuneRun {
  double wall = 1e300;  ///< fastest of the repetitions
  sim::SimResult result;
};

TopotuneRun run_topotune(const sim::TopologyNetwork& net, const sched::Schedule& s, bool symmetry) {
  sim::SimOptions o;
  o.exploit_symmetry = symmetry;
  TopotuneRun out;
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = now_s();
    auto r = sim::Simulator(net, o).run(s);
    const double wall = now_s() - t0;
    if (!r) {
      std::fprintf(stderr, "topotune: %s\n", r.error().message.c_str());
      std::exit(1);
    }
    if (wall < out.wall) out.wall = wall;
    out.result = std::move(*r);
  }
  return out;
}

double largest_difference(const sim::SimResult& ours, const std::vector<double>& theirs) {
  double worst = 0;
  for (std::size_t i = 0; i < theirs.size(); ++i) {
    const double a = ours.transfers[i].end.value, b = theirs[i];
    worst = std::max(worst, std::abs(a - b) / std::max(std::abs(b), 1e-12));
  }
  return worst;
}

void run_case(int ranks, const char* name, std::int64_t bytes, std::size_t max_simgrid) {
  auto topo = topo::load_instance("p4d.24xlarge", ranks / 8);
  auto layout = algo::layout_from_topology(*topo, 1);
  auto algorithm = algo::make_algorithm(name, algo::AlgorithmOptions{});
  if (!topo || !layout || !algorithm) std::exit(1);
  sched::CollectiveSpec spec;
  spec.ranks = ranks;
  spec.bytes = Bytes(bytes);
  auto s = (*algorithm)->generate(spec, *layout);
  if (!s) std::exit(1);
  const sim::TopologyNetwork net(*topo);
  const TopotuneRun sym = run_topotune(net, *s, true);
  const TopotuneRun full = run_topotune(net, *s, false);
  double agree = 0;  // reduced against full, every transfer
  for (std::size_t i = 0; i < s->size(); ++i) {
    const double a = sym.result.transfers[i].end.value, b = full.result.transfers[i].end.value;
    agree = std::max(agree, std::abs(a - b) / std::max(std::abs(b), 1e-12));
  }
  std::printf("%6d %-13s %11zu %10.4f %10.4f %9d %9.2e", ranks, name, s->size(), sym.wall,
              full.wall, sym.result.symmetry, agree);
  if (s->size() > max_simgrid) {
    std::printf("  SimGrid not run: %zu transfers > bound %zu\n", s->size(), max_simgrid);
    std::fflush(stdout);
    return;
  }
  std::fflush(stdout);
  const double t0 = now_s();
  auto theirs = sim::testing::simgrid_completion_times(net, *s);
  const double sg_wall = now_s() - t0;
  if (!theirs) {
    std::printf("  SimGrid failed: %s\n", theirs.error().message.c_str());
    return;
  }
  std::printf(" %10.2f %9.0fx %9.0fx %9.2e %9.2e\n", sg_wall, sg_wall / sym.wall,
              sg_wall / full.wall, largest_difference(sym.result, *theirs),
              largest_difference(full.result, *theirs));
  std::fflush(stdout);
}

}  // namespace
}  // namespace topotune

int main(int argc, char** argv) {
  std::size_t max_simgrid = 20'000;
  std::int64_t bytes = std::int64_t{1} << 30;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--max-simgrid-transfers") == 0) {
      max_simgrid = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (std::strcmp(argv[i], "--size") == 0) {
      bytes = std::strtoll(argv[i + 1], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: simgrid_bench [--max-simgrid-transfers N] [--size BYTES]\n");
      return 2;
    }
  }
  std::printf(
      "p4d.24xlarge x ranks/8, cluster placement (rail-optimised units above 32 nodes), "
      "allreduce of %lld bytes; load %s\n",
      static_cast<long long>(bytes), topotune::load_average().c_str());
  std::printf(
      "walls in seconds; 'sym' with the symmetry reduction, 'full' without; "
      "diff = largest relative difference of completion times\n");
  std::printf("%6s %-13s %11s %10s %10s %9s %9s %10s %10s %10s %9s %9s\n", "ranks", "schedule",
              "transfers", "tt_sym_s", "tt_full_s", "orbit", "sym-full", "simgrid_s", "sg/sym",
              "sg/full", "diff_sym", "diff_full");
  for (int ranks : {64, 512, 4096}) {
    for (const char* name : {"ring", "hierarchical"}) {
      topotune::run_case(ranks, name, bytes, max_simgrid);
    }
  }
  std::printf("load at the end %s\n", topotune::load_average().c_str());
  return 0;
}
