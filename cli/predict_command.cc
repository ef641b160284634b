// topotune predict: what NCCL does for a collective on a cluster, size by size.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "cli/commands.h"
#include "cli/nccl_common.h"
#include "core/quantity_parse.h"

namespace topotune::cli {
namespace {

struct PredictArgs {
  std::string instance;
  int nodes = 1;
  std::string cluster;
  std::string collective = "allreduce";
  std::string algo = "nccl";
  std::string sizes = "8:16G";
  std::string nccl_version;
  std::string nccl_proto;
  std::string calibration;
  std::string format = "table";
  int gpus_per_thread = 1;
  bool explain = false;
};

std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

void print_candidates(std::ostream& out, const algo::NcclPrediction& p) {
  for (const algo::NcclCandidate& c : p.candidates) {
    char line[200];
    if (!c.enabled) {
      std::snprintf(line, sizeof line, "#     %-9s %-6s  disabled: %s\n",
                    algo::nccl_algo_name(c.algo), algo::nccl_proto_name(c.proto),
                    c.why_disabled.c_str());
    } else {
      std::snprintf(line, sizeof line,
                    "#     %-9s %-6s  %12.2f us  (latency %9.2f us, %2d channels, bound by %s)%s\n",
                    algo::nccl_algo_name(c.algo), algo::nccl_proto_name(c.proto), c.time.us(),
                    c.latency.us(), c.channels, c.bottleneck.c_str(),
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

Expected<void> run_predict(const PredictArgs& a, std::ostream& out) {
  if (a.algo != "nccl") {
    TT_TRY(algo::NcclAlgo forced, algo::parse_nccl_algo(a.algo).context(
                                      "--algo: only NCCL's algorithms are modelled in this build "
                                      "(nccl, ring, tree, nvls, nvls_tree); schedule-based ones "
                                      "(rhd, ps, hierarchical) come with the simulator"));
    (void)forced;
  }
  if (a.format != "table" && a.format != "json") {
    return fail(Errc::InvalidArgument, "--format must be table or json");
  }
  TT_TRY(algo::NcclSystem sys, resolve_nccl_system(a.instance, a.nodes, a.cluster));
  sys.gpus_per_thread = a.gpus_per_thread;
  TT_TRY(const sched::Collective coll, sched::parse_collective(a.collective));
  TT_TRY(const std::vector<Bytes> sizes, parse_size_list(a.sizes));
  TT_TRY(const algo::NcclModelParams params, load_nccl_model(a.calibration));
  TT_TRY(const algo::NcclOptions opts,
         make_nccl_options(a.nccl_version, a.algo == "nccl" ? "" : a.algo, a.nccl_proto));
  const algo::NcclPredictor predictor(sys, params, opts);
  const bool json = a.format == "json";
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  if (!json) {
    out << "# topotune predict: " << sys.instance << " x " << sys.nodes << " node(s), "
        << sys.ranks() << " ranks, " << sched::collective_name(coll) << ", NCCL "
        << opts.version.str() << "\n"
        << "#       size         count      type       time   algbw   busbw  algorithm  protocol\n"
        << "#        (B)    (elements)                 (us)  (GB/s)  (GB/s)\n";
  }
  for (const Bytes b : sizes) {
    TT_TRY(const algo::NcclPrediction p, predictor.predict(coll, b, a.explain));
    const char* an = algo::nccl_algo_name(p.chosen.algo);
    const char* pn = algo::nccl_proto_name(p.chosen.proto);
    if (json) {
      nlohmann::ordered_json r = {{"bytes", b.value},
                                  {"time_us", p.chosen.time.us()},
                                  {"algbw_GBps", p.algbw_GBps},
                                  {"busbw_GBps", p.busbw_GBps},
                                  {"algorithm", an},
                                  {"protocol", pn}};
      if (a.explain) r["candidates"] = candidates_json(p);
      rows.push_back(std::move(r));
      continue;
    }
    char line[200];
    std::snprintf(line, sizeof line, "%12lld  %12lld     float %10s  %6.2f  %6.2f  %-9s  %s\n",
                  static_cast<long long>(b.value), static_cast<long long>(b.value / 4),
                  fmt("%.2f", p.chosen.time.us()).c_str(), p.algbw_GBps, p.busbw_GBps, an, pn);
    out << line;
    if (a.explain) print_candidates(out, p);
  }
  if (json) {
    nlohmann::ordered_json j = {{"instance", sys.instance},
                                {"nodes", sys.nodes},
                                {"ranks", sys.ranks()},
                                {"collective", sched::collective_name(coll)},
                                {"rows", std::move(rows)}};
    out << j.dump(2) << "\n";
  }
  return {};
}

}  // namespace

CommandRun setup_predict(CLI::App& sub) {
  auto a = std::make_shared<PredictArgs>();
  sub.add_option("--instance", a->instance, "catalog instance, e.g. p4d.24xlarge");
  sub.add_option("--nodes", a->nodes, "number of nodes")->check(CLI::PositiveNumber);
  sub.add_option("--cluster", a->cluster, "cluster JSON file instead of --instance");
  sub.add_option("--collective", a->collective,
                 "allreduce | allgather | reduce_scatter | broadcast");
  sub.add_option("--algo", a->algo,
                 "nccl (NCCL's choice) or one NCCL algorithm: ring, tree, nvls, nvls_tree");
  sub.add_option("--sizes", a->sizes, "A:B (A, 2A, ... B) or a list 1M,64M,1G (default 8:16G)");
  sub.add_option("--nccl-version", a->nccl_version, "NCCL release, e.g. 2.23.4 (default: latest)");
  sub.add_option("--nccl-proto", a->nccl_proto,
                 "restrict protocols as NCCL_PROTO does, e.g. ^LL128");
  sub.add_option("--calibration", a->calibration, "parameters from `topotune calibrate`");
  sub.add_option("--gpus-per-thread", a->gpus_per_thread,
                 "GPUs one thread launches (nccl-tests -g)")
      ->check(CLI::PositiveNumber);
  sub.add_option("--format", a->format, "table | json");
  sub.add_flag("--explain", a->explain, "show every candidate's time and bottleneck");
  return [a](std::ostream& out) { return run_predict(*a, out); };
}

}  // namespace topotune::cli
