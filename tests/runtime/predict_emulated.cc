// predict_emulated [--digests] CLUSTER_JSON ALGOS SIZES [CHANNELS]: the simulator's predicted time of each
// algorithm at each size on the cluster described by CLUSTER_JSON (as written by `topotune
// emulate up`), printed in the measurement schema so that emulated_check.py compares it with
// `topotune measure` row by row. The schedules are generated exactly as `topotune measure
// --cluster` generates them (same registry names, layout from the same topology). `mpi` is
// predicted as rhd (recursive halving-doubling), which is what Open MPI's MPI_Allreduce runs
// at these sizes (Rabenseifner), over the bit-reversed rank order: Open MPI halves at
// distance 1 first, the generator at distance p/2 first, and position v <-> rank bitrev(v)
// turns one into the other (on 2x2 it keeps the first, largest exchange inside a host).
// The mapping and the simulation are tune::SchedulePredictor's (autotune/schedule_predictor.h,
// shared with `measure` and `topotune validate --measured`). Planner labels ("hierarchical(rhd)", "ps(k=2)",
// "ring/ch2") are generated as `topotune plan` timed them (tune::make_schedule_algorithm), as
// `topotune measure` runs them.
//
// --digests prints instead, per algorithm and size, a digest of the schedule `measure` runs
// (a hash of its lossless JSON, schedule_json.h, without the algorithm's name), so that emulated_check.py can tell two names for one schedule apart from two
// schedules (on hosts of one GPU, hierarchical(ring) is the flat ring, transfer for transfer).
// `mpi` has none: Open MPI runs its own code, whatever schedule models it.

#include <cstdio>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "algorithms/schedule/schedule_json.h"
#include "autotune/schedule_predictor.h"
#include "core/quantity_parse.h"
#include "runtime/measurement.h"
#include "topology/cluster_spec.h"
#include "topology/topology.h"

namespace {

using namespace topotune;

// What both outputs read: the cluster's predictor, the algorithms and the sizes.
struct Inputs {
  std::string cluster;
  tune::SchedulePredictor predictor;
  std::vector<std::string> algorithms;
  std::vector<Bytes> sizes;

  sched::CollectiveSpec spec(Bytes size) const {
    sched::CollectiveSpec s;
    s.ranks = predictor.ranks();
    s.bytes = size;
    return s;
  }
};

Expected<Inputs> load(const std::string& cluster, const std::string& algos,
                      const std::string& sizes, int channels) {
  TT_TRY(topo::ClusterSpec cs, topo::load_cluster_file(cluster));
  TT_TRY(tune::SchedulePredictor predictor, tune::SchedulePredictor::create(cs, channels));
  TT_TRY(std::vector<Bytes> size_list, parse_size_list(sizes));
  return Inputs{cluster, std::move(predictor), split_comma_list(algos), std::move(size_list)};
}

Expected<std::string> predict(const Inputs& in) {
  const topo::Topology& t = in.predictor.topology();
  rt::Measurement m;
  m.source = "topotune-simulator";
  m.backend = "simulated";
  m.ranks = t.num_ranks();
  m.nodes = t.num_hosts();
  m.gpus_per_node = t.gpus_per_host();
  m.cluster = in.cluster;
  for (const std::string& name : in.algorithms) {
    // The schedule `measure` ran (for `mpi` the Open MPI model), simulated: the library's
    // mapping, the one `topotune validate --measured` uses.
    for (Bytes s : in.sizes) {
      const sched::CollectiveSpec spec = in.spec(s);
      TT_TRY(const Seconds time, in.predictor.time(name, spec));
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
  return rt::to_json(m);
}

// The schedule's content: its lossless JSON (schedule_json.h) without the algorithm's name,
// hashed. Only compared within one run, so std::hash's choice of function does not matter.
std::string digest(const sched::Schedule& s) {
  nlohmann::json j = nlohmann::json::parse(sched::schedule_to_json(s));
  j.erase("algorithm");
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(std::hash<std::string>{}(j.dump())));
  return hex;
}

Expected<std::string> digests(const Inputs& in) {
  nlohmann::json out = nlohmann::json::object();
  for (const std::string& name : in.algorithms) {
    if (name == "mpi") continue;
    for (Bytes s : in.sizes) {
      TT_TRY(const sched::Schedule schedule, in.predictor.schedule(name, in.spec(s)));
      out[name][std::to_string(s.value)] = digest(schedule);
    }
  }
  return out.dump(1) + "\n";
}

Expected<std::string> run(bool want_digests, const std::string& cluster, const std::string& algos,
                          const std::string& sizes, int channels) {
  TT_TRY(const Inputs in, load(cluster, algos, sizes, channels));
  return want_digests ? digests(in) : predict(in);
}

}  // namespace

int main(int argc, char** argv) {
  const bool want_digests = argc > 1 && std::string(argv[1]) == "--digests";
  if (want_digests) --argc, ++argv;
  if (argc < 4) {
    std::fprintf(stderr, "usage: predict_emulated [--digests] CLUSTER_JSON ALGOS SIZES [CHANNELS]\n");
    return 2;
  }
  auto out = run(want_digests, argv[1], argv[2], argv[3], argc > 4 ? std::atoi(argv[4]) : 1);
  if (!out) {
    std::fprintf(stderr, "predict_emulated: error: %s\n", out.error().message.c_str());
    return 1;
  }
  std::cout << *out;
  return 0;
}
