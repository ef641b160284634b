// predict_emulated CLUSTER_JSON ALGOS SIZES [CHANNELS]: the simulator's predicted time of each
// algorithm at each size on the cluster described by CLUSTER_JSON (as written by `topotune
// emulate up`), printed in the measurement schema so that emulated_check.py compares it with
// `topotune measure` row by row. The schedules are generated exactly as `topotune measure
// --cluster` generates them (same registry names, layout from the same topology). `mpi` is
// predicted as rhd (recursive halving-doubling), which is what Open MPI's MPI_Allreduce runs
// at these sizes (Rabenseifner), over the bit-reversed rank order: Open MPI halves at
// distance 1 first, the generator at distance p/2 first, and position v <-> rank bitrev(v)
// turns one into the other (on 2x2 it keeps the first, largest exchange inside a host).
// The name -> schedule mapping lives in autotune/schedule_predictor.h (shared with `measure`
// and `topotune validate --measured`). Planner labels ("hierarchical(rhd)", "ps(k=2)",
// "ring/ch2") are generated as `topotune plan` timed them (tune::make_schedule_algorithm), as
// `topotune measure` runs them.

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "core/quantity_parse.h"
#include "runtime/measurement.h"
#include "autotune/schedule_predictor.h"
#include "simulator/simulator.h"
#include "topology/cluster_spec.h"
#include "topology/topology.h"

namespace {

using namespace topotune;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t b = 0;
  while (b <= s.size()) {
    const std::size_t e = std::min(s.find(',', b), s.size());
    if (e > b) out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

Expected<rt::Measurement> predict(const std::string& cluster, const std::string& algos,
                                  const std::string& sizes, int channels) {
  TT_TRY(topo::ClusterSpec cs, topo::load_cluster_file(cluster));
  TT_TRY(topo::Topology t, topo::build_topology(cs));
  TT_TRY(std::vector<Bytes> size_list, parse_size_list(sizes));
  rt::Measurement m;
  m.source = "topotune-simulator";
  sim::Simulator simulator(t);
  m.backend = "simulated";
  m.ranks = t.num_ranks();
  m.nodes = t.num_hosts();
  m.gpus_per_node = t.gpus_per_host();
  m.cluster = cluster;
  for (const std::string& name : split(algos)) {
    // The schedule `measure` ran (for `mpi` the Open MPI model): the library's mapping, the
    // one `topotune validate --measured` uses.
    TT_TRY(const tune::MeasuredAlgorithm ma, tune::measured_algorithm(name, channels));
    TT_TRY(std::unique_ptr<algo::Algorithm> a,
           tune::make_measured_algorithm(ma, sched::Collective::Allreduce));
    TT_TRY(const algo::RankLayout layout, algo::layout_from_topology(t, ma.options.channels));
    const algo::RankLayout order = tune::measured_layout(ma, layout);
    for (Bytes s : size_list) {
      sched::CollectiveSpec spec;
      spec.ranks = t.num_ranks();
      spec.bytes = s;
      TT_TRY(sched::Schedule schedule, a->generate(spec, order));
      TT_TRY(sim::SimResult r, simulator.run(schedule));
      const Seconds time = r.makespan;
      rt::MeasurementRow row;
      row.algorithm = name;
      row.bytes = s.value;
      row.count = spec.elements();
      row.time_us = time.us();
      row.algbw_GBps = time.value > 0 ? s.as_double() / time.value / 1e9 : 0.0;
      row.busbw_GBps = row.algbw_GBps * rt::busbw_factor(sched::Collective::Allreduce, m.ranks);
      m.rows.push_back(row);
    }
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: predict_emulated CLUSTER_JSON ALGOS SIZES [CHANNELS]\n");
    return 2;
  }
  auto m = predict(argv[1], argv[2], argv[3], argc > 4 ? std::atoi(argv[4]) : 1);
  if (!m) {
    std::fprintf(stderr, "predict_emulated: error: %s\n", m.error().message.c_str());
    return 1;
  }
  std::cout << rt::to_json(*m);
  return 0;
}
