// predict_emulated CLUSTER_JSON ALGOS SIZES [CHANNELS [COLLECTIVE]]: the simulator's predicted
// time of each algorithm (allreduce, or COLLECTIVE: allgather, reduce_scatter) at each size on
// the cluster described by CLUSTER_JSON (as written by `topotune
// emulate up`), printed in the measurement schema so that emulated_check.py compares it with
// `topotune measure` row by row. The schedules are generated exactly as `topotune measure
// --cluster` generates them (same registry names, layout from the same topology). `mpi` is
// predicted as rhd (recursive halving-doubling), which is what Open MPI's MPI_Allreduce runs
// at these sizes (Rabenseifner), over the bit-reversed rank order: Open MPI halves at
// distance 1 first, the generator at distance p/2 first, and position v <-> rank bitrev(v)
// turns one into the other (on 2x2 it keeps the first, largest exchange inside a host). For
// reduce_scatter and allgather `mpi` is what Open MPI's coll/tuned picks for
// MPI_Reduce_scatter / MPI_Allgatherv (algorithms/open_mpi_decision.h): the ring, or the
// allgather's neighbor exchange (4 ranks, large sizes) or Bruck's (4 ranks, 16-256 KiB a rank).
// The mapping and the simulation are tune::SchedulePredictor's (timing/schedule_predictor.h,
// shared with `measure` and `topotune validate --measured`). Planner labels ("hierarchical(rhd)",
// "ps(k=2)", "ring/ch2") are generated as `topotune plan` timed them
// (tune::make_schedule_algorithm), as `topotune measure` runs them.

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "core/quantity_parse.h"
#include "measurement/measurement.h"
#include "timing/schedule_predictor.h"
#include "topology/cluster_spec.h"
#include "topology/topology.h"

namespace {

using namespace topotune;

Expected<rt::Measurement> predict(const std::string& cluster, const std::string& algos,
                                  const std::string& sizes, int channels,
                                  sched::Collective collective) {
  TT_TRY(topo::ClusterSpec cs, topo::load_cluster_file(cluster));
  TT_TRY(const tune::SchedulePredictor predictor, tune::SchedulePredictor::create(cs, channels));
  TT_TRY(std::vector<Bytes> size_list, parse_size_list(sizes));
  const topo::Topology& t = predictor.topology();
  rt::Measurement m;
  m.source = "topotune-simulator";
  m.backend = "simulated";
  m.ranks = t.num_ranks();
  m.nodes = t.num_hosts();
  m.gpus_per_node = t.gpus_per_host();
  m.cluster = cluster;
  m.collective = collective;
  for (const std::string& name : split_comma_list(algos)) {
    // The schedule `measure` ran (for `mpi` the Open MPI model), simulated: the library's
    // mapping, the one `topotune validate --measured` uses.
    for (Bytes s : size_list) {
      sched::CollectiveSpec spec;
      spec.collective = collective;
      spec.ranks = t.num_ranks();
      spec.bytes = s;
      TT_TRY(const Seconds time, predictor.time(name, spec));
      rt::MeasurementRow row;
      row.algorithm = name;
      row.bytes = s.value;
      row.count = spec.elements();
      row.time_us = time.us();
      row.algbw_GBps = time.value > 0 ? s.as_double() / time.value / 1e9 : 0.0;
      row.busbw_GBps = row.algbw_GBps * sched::busbw_factor(collective, m.ranks);
      m.rows.push_back(row);
    }
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: predict_emulated CLUSTER_JSON ALGOS SIZES [CHANNELS [COLLECTIVE]]\n");
    return 2;
  }
  auto collective = sched::parse_collective(argc > 5 ? argv[5] : "allreduce");
  if (!collective) {
    std::fprintf(stderr, "predict_emulated: error: %s\n", collective.error().message.c_str());
    return 2;
  }
  auto m = predict(argv[1], argv[2], argv[3], argc > 4 ? std::atoi(argv[4]) : 1, *collective);
  if (!m) {
    std::fprintf(stderr, "predict_emulated: error: %s\n", m.error().message.c_str());
    return 1;
  }
  std::cout << rt::to_json(*m);
  return 0;
}
