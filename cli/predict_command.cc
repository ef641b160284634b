// topotune predict: what NCCL does for a collective on a cluster, size by size.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "algorithms/cost_params.h"
#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "autotune/model_timers.h"
#include "cli/algorithm_flags.h"
#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "cli/nccl_common.h"
#include "cli/output_format.h"
#include "core/quantity_parse.h"
#include "core/string_printf.h"
#include "simulator/simulator.h"
#include "topology/topology.h"

namespace topotune::cli {
namespace {

struct PredictArgs {
  ClusterFlags cluster;
  std::string collective = "allreduce";
  std::string algo = "nccl";
  std::string sizes = "8:16G";
  std::string nccl_version;
  std::string nccl_algo;
  std::string nccl_proto;
  int nccl_channels = 0;  ///< from --algo nccl:X/chN: NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS
  std::string calibration;
  OutputFormat format = OutputFormat::Table;
  int gpus_per_thread = 1;
  bool explain = false;
  bool simulate = false;
};

void print_candidates(std::ostream& out, const algo::NcclPrediction& p) {
  for (const algo::NcclCandidate& c : p.candidates) {
    std::string line;
    if (!c.enabled) {
      line = string_printf("#     %-9s %-6s  disabled: %s\n", algo::nccl_algo_name(c.algo),
                           algo::nccl_proto_name(c.proto), c.why_disabled.c_str());
    } else {
      line = string_printf(
          "#     %-9s %-6s  %12.2f us  (latency %9.2f us, %2d channels, bound by %s)%s\n",
          algo::nccl_algo_name(c.algo), algo::nccl_proto_name(c.proto), c.time.us(), c.latency.us(),
          c.channels, c.bottleneck.c_str(),
          c.algo == p.chosen.algo && c.proto == p.chosen.proto ? "  <= chosen" : "");
    }
    out << line;
  }
}

nlohmann::ordered_json candidates_json(const algo::NcclPrediction& p) {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const algo::NcclCandidate& c : p.candidates) {
    nlohmann::ordered_json j = {{"algorithm", algo::nccl_algo_name(c.algo)},
                                {"protocol", algo::nccl_proto_name(c.proto)},
                                {"enabled", c.enabled}};
    if (c.enabled) {
      j["time_us"] = c.time.us();
      j["latency_us"] = c.latency.us();
      j["channels"] = c.channels;
      j["bottleneck"] = c.bottleneck;
    } else {
      j["why_disabled"] = c.why_disabled;
    }
    arr.push_back(std::move(j));
  }
  return arr;
}

/// One row of output, whichever model produced it.
struct PredictRow {
  std::int64_t bytes;
  double time_us, algbw, busbw;
  std::string algorithm, protocol;
};

void print_row(std::ostream& out, const PredictRow& r) {
  std::string line;
  line = string_printf("%12lld  %12lld     float %10.2f  %6.2f  %6.2f  %-9s  %s\n",
                       static_cast<long long>(r.bytes), static_cast<long long>(r.bytes / 4),
                       r.time_us, r.algbw, r.busbw, r.algorithm.c_str(), r.protocol.c_str());
  out << line;
}

nlohmann::ordered_json row_json(const PredictRow& r) {
  return {{"bytes", r.bytes},      {"time_us", r.time_us},     {"algbw_GBps", r.algbw},
          {"busbw_GBps", r.busbw}, {"algorithm", r.algorithm}, {"protocol", r.protocol}};
}

/// The cluster every prediction runs on (--instance/--nodes/--placement or --cluster), with
/// the model's physical link parameters (--calibration's, or the fitted defaults).
Expected<topo::ClusterSpec> predict_cluster(const PredictArgs& a) {
  TT_TRY(topo::ClusterSpec spec, resolve_cluster(a.cluster));
  TT_TRY_VOID(tune::apply_calibration_file(a.calibration, spec).context("--calibration"));
  return spec;
}

/// A schedule-based algorithm of the registry, timed by its closed form (alpha-beta-gamma on
/// the topology's routes) or, with --simulate, by the flow simulator; both with the one model's
/// software costs and fabric (tune::ModelTimers).
Expected<std::vector<PredictRow>> predict_schedule(const PredictArgs& a, sched::Collective coll,
                                                   const std::vector<Bytes>& sizes, int& ranks,
                                                   int& nodes) {
  TT_TRY(const topo::ClusterSpec spec, predict_cluster(a));
  nodes = spec.hosts;
  TT_TRY(const algo::NcclModelParams model, tune::load_nccl_model(a.calibration));
  TT_TRY(const auto timers, tune::ModelTimers::create(spec, model));
  TT_TRY(const topo::Topology t, topo::build_topology(spec));
  TT_TRY(const algo::RankLayout layout, algo::layout_from_topology(t, 1));
  const algo::CostParams wire =
      tune::with_fabric(algo::cost_params_from_topology(t), timers->fabric());
  const tune::ShapeDefaults costs = tune::software_costs(model, timers->system());
  const algo::CostParams params = tune::with_software_costs(wire, costs);
  algo::AlgorithmOptions options;
  // A schedule the simulator would run is refused before it is built when it cannot fit.
  if (a.simulate) {
    TT_TRY(options.memory, simulation_budget());
  }
  TT_TRY(const auto alg, algo::make_algorithm(a.algo, options, coll));
  ranks = t.num_ranks();
  std::vector<PredictRow> rows;
  for (const Bytes b : sizes) {
    sched::CollectiveSpec spec;
    spec.collective = coll;
    spec.ranks = ranks;
    spec.bytes = b;
    TT_TRY(Seconds time, alg->closed_form(spec, layout, params));
    if (a.simulate) {
      // The simulator sees wire latencies only: it pays the same software costs as the
      // closed form (their share of it) on top of its makespan.
      TT_TRY(const Seconds on_wire, alg->closed_form(spec, layout, wire));
      TT_TRY(const sched::Schedule schedule, alg->generate(spec, layout));
      sim::SimOptions options;
      TT_TRY(options.memory_limit, simulation_memory_limit());
      TT_TRY(const sim::SimResult result, sim::Simulator(t, options).run(schedule));
      time = result.makespan + Seconds(std::max(0.0, time.value - on_wire.value));
    }
    if (b.value > 0 && ranks > 1) time = time + costs.op_latency;
    const double algbw = time.value > 0 ? b.as_double() / time.value / 1e9 : 0.0;
    const double factor = sched::busbw_factor(coll, ranks);
    rows.push_back({b.value, time.us(), algbw, algbw * factor, alg->name(),
                    a.simulate ? "simulated" : "closed-form"});
  }
  return rows;
}

Expected<void> run_nccl_predict(const PredictArgs& a, sched::Collective coll,
                                const std::vector<Bytes>& sizes, std::ostream& out) {
  TT_TRY(const topo::ClusterSpec spec, predict_cluster(a));
  TT_TRY(const algo::NcclModelParams params, tune::load_nccl_model(a.calibration));
  // The fabric (placement, spine, per-flow caps) from the flow simulator on the topology.
  TT_TRY(algo::NcclSystem sys, tune::nccl_system_on_fabric(spec, params));
  sys.gpus_per_thread = a.gpus_per_thread;
  TT_TRY(const algo::NcclOptions opts,
         make_nccl_options(a.nccl_version, a.nccl_algo, a.nccl_proto));
  algo::NcclOptions with_channels = opts;
  with_channels.min_channels = with_channels.max_channels = a.nccl_channels;
  const algo::NcclPredictor predictor(sys, params, with_channels);
  const bool json = a.format == OutputFormat::Json;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  if (!json) {
    out << "# topotune predict: " << sys.instance << " x " << sys.nodes << " node(s), "
        << topo::placement_name(spec.placement) << " placement, " << sys.ranks() << " ranks, "
        << sched::collective_name(coll) << ", NCCL " << opts.version.str() << "\n"
        << "#       size         count      type       time   algbw   busbw  algorithm  protocol\n"
        << "#        (B)    (elements)                 (us)  (GB/s)  (GB/s)\n";
  }
  for (const Bytes b : sizes) {
    TT_TRY(const algo::NcclPrediction p, predictor.predict(coll, b, a.explain));
    const PredictRow row{b.value,
                         p.chosen.time.us(),
                         p.algbw_GBps,
                         p.busbw_GBps,
                         algo::nccl_algo_name(p.chosen.algo),
                         algo::nccl_proto_name(p.chosen.proto)};
    if (json) {
      nlohmann::ordered_json r = row_json(row);
      if (a.explain) r["candidates"] = candidates_json(p);
      rows.push_back(std::move(r));
    } else {
      print_row(out, row);
      if (a.explain) print_candidates(out, p);
    }
  }
  if (json) {
    const nlohmann::ordered_json j = {{"instance", sys.instance},
                                      {"nodes", sys.nodes},
                                      {"ranks", sys.ranks()},
                                      {"collective", sched::collective_name(coll)},
                                      {"rows", std::move(rows)}};
    out << j.dump(2) << "\n";
  }
  return {};
}

Expected<void> run_predict(const PredictArgs& a, std::ostream& out) {
  TT_TRY(const sched::Collective coll, sched::parse_collective(a.collective));
  TT_TRY(const std::vector<Bytes> sizes, parse_size_list(a.sizes));
  // NCCL's own algorithms by their names (nccl:default, nccl:ring, nccl:tree, /chN): the
  // NCCL predictor with NCCL_ALGO and the channel count they stand for.
  if (auto choice = algo::parse_algorithm_choice(a.algo); choice && choice->is_nccl()) {
    PredictArgs n = a;
    if (choice->kind != algo::AlgoKind::NcclDefault) {
      if (!a.nccl_algo.empty()) {
        return fail(Errc::InvalidArgument, "--algo " + a.algo +
                                               " already sets NCCL's algorithm: "
                                               "drop --nccl-algo");
      }
      n.nccl_algo = choice->kind == algo::AlgoKind::NcclRing ? "ring" : "tree";
    }
    n.nccl_channels = choice->channels;
    return run_nccl_predict(n, coll, sizes, out);
  }
  if (a.algo != "nccl") {
    int ranks = 0, nodes = 0;
    TT_TRY(const std::vector<PredictRow> rows, predict_schedule(a, coll, sizes, ranks, nodes));
    const std::string instance =
        a.cluster.cluster_file.empty() ? a.cluster.instance : a.cluster.cluster_file;
    if (a.format == OutputFormat::Json) {
      nlohmann::ordered_json arr = nlohmann::ordered_json::array();
      for (const PredictRow& r : rows) arr.push_back(row_json(r));
      const nlohmann::ordered_json j = {{"instance", instance},
                                        {"nodes", nodes},
                                        {"ranks", ranks},
                                        {"collective", sched::collective_name(coll)},
                                        {"rows", std::move(arr)}};
      out << j.dump(2) << "\n";
      return {};
    }
    out << "# topotune predict: " << instance << " x " << nodes << " node(s), " << ranks
        << " ranks, " << sched::collective_name(coll) << ", " << a.algo
        << (a.simulate ? " (flow simulation with contention on the topology, plus NCCL's "
                         "software costs)\n"
                       : " (closed-form alpha-beta-gamma time on the topology's routes, with "
                         "NCCL's software costs)\n")
        << "#       size         count      type       time   algbw   busbw  algorithm  protocol\n";
    for (const PredictRow& r : rows) print_row(out, r);
    return {};
  }
  return run_nccl_predict(a, coll, sizes, out);
}

}  // namespace

CommandRun setup_predict(CLI::App& sub) {
  auto a = std::make_shared<PredictArgs>();
  add_cluster_flags(sub, a->cluster);
  sub.add_option("--collective", a->collective,
                 "allreduce | allgather | reduce_scatter | broadcast");
  sub.add_option("--algo", a->algo,
                 "nccl:default (NCCL's model, default; also nccl:ring, nccl:tree, /chN) or one of "
                 "topotune's schedules (closed-form time): " +
                     algo::algorithm_names_text());
  sub.add_option("--sizes", a->sizes, "A:B (A, 2A, ... B) or a list 1M,64M,1G (default 8:16G)");
  sub.add_option("--nccl-version", a->nccl_version, "NCCL release, e.g. 2.23.4 (default: latest)");
  sub.add_option("--nccl-algo", a->nccl_algo,
                 "restrict NCCL's algorithms as NCCL_ALGO does, e.g. ring");
  sub.add_option("--nccl-proto", a->nccl_proto,
                 "restrict protocols as NCCL_PROTO does, e.g. ^LL128");
  sub.add_option("--calibration", a->calibration,
                 "parameters from `topotune calibrate` (NCCL's model; with a schedule --algo, "
                 "the physical link parameters, docs/calibration.md)");
  sub.add_option("--gpus-per-thread", a->gpus_per_thread,
                 "GPUs one thread launches (nccl-tests -g)")
      ->check(CLI::PositiveNumber);
  add_format_option(sub, a->format, {OutputFormat::Table, OutputFormat::Json}, "table | json");
  sub.add_flag("--simulate", a->simulate,
               "schedule algorithms: run the flow simulator instead of the closed form");
  sub.add_flag("--explain", a->explain, "show every candidate's time and bottleneck");
  sub.footer(
      "Examples:\n"
      "  topotune predict --instance p4d.24xlarge --nodes 2\n"
      "  topotune predict --instance p4d.24xlarge --nodes 2 --algo nccl:ring --sizes 1M,64M\n"
      "  topotune predict --instance p4d.24xlarge --nodes 2 --algo 'hierarchical(rhd)' "
      "--sizes 64M --simulate");
  return [a](std::ostream& out) { return run_predict(*a, out); };
}

}  // namespace topotune::cli
