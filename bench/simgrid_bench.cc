// topotune's flow simulator against SimGrid, side by side: the same schedule on the
// same network (p4d.24xlarge hosts, cluster placement: one switch up to 32 nodes, then
// rail-optimised 32-node units under a spine, docs/cluster.md) through the SimGrid replay the
// oracle test uses (tests/simulator/simgrid_replay.h: S4U activities, CM02 reduced to plain
// max-min) and through sim::Simulator, at 512 and 4,096 ranks (64 as a quick check), flat ring
// and hierarchical(ring) allreduce. Prints the wall times, their ratios and the largest
// relative difference of the transfers' completion times. topotune runs three times each
// (fastest kept): 'dir', the reduced schedule written by the generator and simulated (what
// `topotune simulate` runs; the time includes writing it); 'sym', the full schedule reduced by
// the simulator (simulator/symmetry.h); 'full', every transfer simulated. SimGrid runs once.
// 'orbit' is the number of transfers each simulated one stood for; 'sym-full' the largest
// relative difference between the two topotune runs.
//
// A case above the transfer bound (default 5,000,000, --max-simgrid-transfers N) is not given
// to SimGrid (the line says so): the 4,096-rank ring has 33.5 M transfers, about ten minutes of
// SimGrid on the 2-core development machine. Not a Google Benchmark: each case is one long run.
//
//   build/bench/simgrid_bench [--max-simgrid-transfers N] [--size BYTES] [--ranks 64,512,4096]
//                             [--schedules ring,hierarchical]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "core/string_printf.h"
#include "simulator/simulator.h"
#include "simulator/symmetry.h"
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

// The reduced schedule written by the generator (what `topotune simulate` runs), generated and
// simulated: the time includes writing the representatives.
TopotuneRun run_direct(const topo::Topology& topo, const algo::Algorithm& algorithm,
                       const sched::CollectiveSpec& spec, const algo::RankLayout& layout) {
  TopotuneRun out;
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = now_s();
    auto reduced = algorithm.generate_reduced(spec, layout, topo.host_period());
    if (!reduced || !*reduced) return TopotuneRun{};  // no reduced schedule: wall stays 1e300
    auto r = sim::Simulator(topo).run(**reduced);
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

// Largest relative difference of the completion times; `orbit_of` maps a transfer to its
// representative when `ours` holds the representatives' timings.
double largest_difference(const sim::SimResult& ours, const std::vector<double>& theirs,
                          const std::vector<std::uint32_t>* orbit_of = nullptr) {
  double worst = 0;
  for (std::size_t i = 0; i < theirs.size(); ++i) {
    const std::size_t j = orbit_of ? (*orbit_of)[i] : i;
    const double a = ours.transfers[j].end.value, b = theirs[i];
    worst = std::max(worst, std::abs(a - b) / std::max(std::abs(b), 1e-12));
  }
  return worst;
}

std::string ratio(double a, double b) {
  if (a >= 1e299 || b >= 1e299) return "-";
  return string_printf("%.0fx", a / b);
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
  const TopotuneRun direct = run_direct(*topo, **algorithm, spec, *layout);
  const TopotuneRun sym = run_topotune(net, *s, true);
  const TopotuneRun full = run_topotune(net, *s, false);
  const std::optional<sim::Quotient> q = sim::quotient_by_translation(*s, net);
  double agree = 0;  // reduced against full, every transfer
  for (std::size_t i = 0; i < s->size(); ++i) {
    const double a = sym.result.transfers[i].end.value, b = full.result.transfers[i].end.value;
    agree = std::max(agree, std::abs(a - b) / std::max(std::abs(b), 1e-12));
  }
  std::printf("%6d %-13s %11zu %10.4f %10.4f %10.4f %6d %9.2e", ranks, name, s->size(),
              direct.wall < 1e299 ? direct.wall : -1.0, sym.wall, full.wall, sym.result.symmetry,
              agree);
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
  const double diff_direct =
      q && direct.wall < 1e299 ? largest_difference(direct.result, *theirs, &q->orbit_of) : -1.0;
  std::printf(" %10.2f %9s %9s %9s %9.2e %9.2e %9.2e\n", sg_wall,
              ratio(sg_wall, direct.wall).c_str(), ratio(sg_wall, sym.wall).c_str(),
              ratio(sg_wall, full.wall).c_str(), diff_direct,
              largest_difference(sym.result, *theirs), largest_difference(full.result, *theirs));
  std::fflush(stdout);
}

}  // namespace
}  // namespace topotune

namespace {

// "64,512" -> {64, 512}; "ring,hierarchical" -> the names.
std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = list.find(',', start);
    out.push_back(
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t max_simgrid = 5'000'000;
  std::int64_t bytes = std::int64_t{1} << 30;
  std::vector<std::string> ranks = {"64", "512", "4096"};
  std::vector<std::string> schedules = {"ring", "hierarchical"};
  const auto usage = [] {
    std::fprintf(stderr,
                 "usage: simgrid_bench [--max-simgrid-transfers N] [--size BYTES] "
                 "[--ranks 64,512,4096] [--schedules ring,hierarchical]\n");
  };
  // Every option takes a value: a lone or unknown one (--help included) prints the usage
  // instead of starting a run that can take twenty minutes.
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) {
      usage();
      return std::strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
    if (std::strcmp(argv[i], "--max-simgrid-transfers") == 0) {
      max_simgrid = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (std::strcmp(argv[i], "--size") == 0) {
      bytes = std::strtoll(argv[i + 1], nullptr, 10);
    } else if (std::strcmp(argv[i], "--ranks") == 0) {
      ranks = split(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--schedules") == 0) {
      schedules = split(argv[i + 1]);
    } else {
      usage();
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
  std::printf("%6s %-13s %11s %10s %10s %10s %6s %9s %10s %9s %9s %9s %9s %9s %9s\n", "ranks",
              "schedule", "transfers", "tt_dir_s", "tt_sym_s", "tt_full_s", "orbit", "sym-full",
              "simgrid_s", "sg/dir", "sg/sym", "sg/full", "diff_dir", "diff_sym", "diff_full");
  for (const std::string& r : ranks) {
    for (const std::string& name : schedules) {
      topotune::run_case(std::atoi(r.c_str()), name.c_str(), bytes, max_simgrid);
    }
  }
  std::printf("load at the end %s\n", topotune::load_average().c_str());
  return 0;
}
