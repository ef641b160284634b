// topotune simulate: run one algorithm's schedule through the contention-aware flow simulator
// on a cluster (docs/simulator.md) and report time, algbw/busbw and the bottleneck links.
//
//   topotune simulate --instance p4d.24xlarge --nodes 4 --algo ring --size 1G
//   topotune simulate --cluster my.json --algo hierarchical --inner rhd --size 256M --format json
//   topotune simulate --instance p5.48xlarge --nodes 2 --algo tree --size 64M --trace trace.json
//   topotune simulate --instance p4d.24xlarge --nodes 2 --algo ring --size 1G --calibration c.json
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "autotune/collective_simulation.h"
#include "cli/algorithm_flags.h"
#include "cli/chrome_trace.h"
#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "cli/file_output.h"
#include "cli/nccl_common.h"
#include "cli/output_format.h"
#include "core/quantity_parse.h"
#include "core/string_printf.h"
#include "simulator/simulator.h"
#include "topology/cluster_spec.h"
#include "topology/topology.h"

namespace topotune::cli {
namespace {

struct SimulateArgs {
  ClusterFlags cluster;
  std::string algo;
  std::string size;
  std::string dtype = "fp32";
  std::string collective = "allreduce";
  AlgorithmFlags algorithm;
  std::string reduction = "serial";
  bool no_flow_caps = false;
  OutputFormat format = OutputFormat::Table;
  std::string trace;
  std::string calibration;
};

constexpr std::size_t kTopLinks = 5;

Expected<sim::SimOptions> sim_options_of(const SimulateArgs& a) {
  sim::SimOptions o;
  if (a.reduction == "serial") {
    o.reduction = sim::ReductionModel::Serial;
  } else if (a.reduction == "overlapped") {
    o.reduction = sim::ReductionModel::Overlapped;
  } else if (a.reduction == "none") {
    o.reduction = sim::ReductionModel::Ignore;
  } else {
    return fail(Errc::InvalidArgument,
                "--reduction must be serial, overlapped or none, got '" + a.reduction + "'");
  }
  o.apply_flow_caps = !a.no_flow_caps;
  o.record_transfers = !a.trace.empty();
  TT_TRY(o.memory_limit, simulation_memory_limit());
  return o;
}

std::string link_name(const topo::Topology& t, LinkId id) {
  const topo::Link& l = t.link(id);
  return t.device(l.src).name + " -> " + t.device(l.dst).name;
}

// Links that carried traffic, busiest first (ties by id): SimResult::bottlenecks for all.
std::vector<LinkId> used_links(const sim::SimResult& r) { return r.bottlenecks(r.links.size()); }

void print_table(const tune::CollectiveSimulation& s, const topo::Topology& t,
                 const std::string& cluster, std::ostream& out) {
  const sim::SimResult& r = s.result;
  const auto& spec = r.spec;
  std::string line;
  line = string_printf(
      "%-12s %s\n%-12s %s\n%-12s %s of %s %s on %d ranks\n%-12s %zu (%llu events)\n", "algorithm",
      s.algorithm.c_str(), "cluster", cluster.c_str(), "collective",
      sched::collective_name(spec.collective), format_size(spec.bytes).c_str(),
      sched::dtype_name(spec.dtype), spec.ranks, "transfers", static_cast<std::size_t>(s.transfers),
      static_cast<unsigned long long>(r.events));
  out << line;
  line = string_printf("%-12s %s\n%-12s %.3f GB/s\n%-12s %.3f GB/s\n", "time",
                       format_duration(r.makespan).c_str(), "algbw", r.algbw.gbps_bytes(), "busbw",
                       r.busbw.gbps_bytes());
  out << line;
  const std::vector<LinkId> top = r.bottlenecks(kTopLinks);
  if (top.empty()) return;
  out << "\nbottleneck links (busy = bytes / capacity; utilisation = busy / time)\n";
  line = string_printf("  %-32s %-16s %10s %12s %12s %6s\n", "link", "kind", "bytes", "capacity",
                       "busy", "util");
  out << line;
  for (LinkId id : top) {
    const topo::Link& l = t.link(id);
    const sim::LinkStats& st = r.links[id.index()];
    line = string_printf("  %-32s %-16s %10s %12s %12s %5.1f%%\n", link_name(t, id).c_str(),
                         topo::link_kind_name(l.kind), format_size(st.bytes).c_str(),
                         format_rate(l.bandwidth).c_str(), format_duration(st.busy).c_str(),
                         100.0 * r.utilisation(id));
    out << line;
  }
}

Expected<void> print_json(const tune::CollectiveSimulation& s, const topo::Topology& t,
                          const std::string& cluster, std::ostream& out) {
  const sim::SimResult& r = s.result;
  try {
    nlohmann::ordered_json j;
    j["algorithm"] = s.algorithm;
    j["cluster"] = cluster;
    j["collective"] = sched::collective_name(r.spec.collective);
    j["bytes"] = r.spec.bytes.value;
    j["ranks"] = r.spec.ranks;
    j["transfers"] = s.transfers;
    j["time_s"] = r.makespan.value;
    j["algbw_GBps"] = r.algbw.gbps_bytes();
    j["busbw_GBps"] = r.busbw.gbps_bytes();
    nlohmann::ordered_json links = nlohmann::ordered_json::array();
    for (LinkId id : used_links(r)) {
      const topo::Link& l = t.link(id);
      const sim::LinkStats& st = r.links[id.index()];
      links.push_back({{"src", t.device(l.src).name},
                       {"dst", t.device(l.dst).name},
                       {"kind", topo::link_kind_name(l.kind)},
                       {"capacity_GBps", l.bandwidth.gbps_bytes()},
                       {"bytes", st.bytes.value},
                       {"busy_s", st.busy.value},
                       {"active_s", st.active.value},
                       {"utilisation", r.utilisation(id)}});
    }
    j["links"] = std::move(links);
    out << j.dump(2) << "\n";
  } catch (const nlohmann::json::exception& e) {
    return fail(Errc::Internal, std::string("writing JSON: ") + e.what());
  }
  return {};
}

Expected<void> run_simulate(const SimulateArgs& a, std::ostream& out) {
  if (!a.trace.empty()) TT_TRY_VOID(check_output_path(a.trace).context("--trace"));  // before work
  TT_TRY(const sim::SimOptions sim_options, sim_options_of(a));
  sched::CollectiveSpec spec;
  TT_TRY(spec.collective, sched::parse_collective(a.collective));
  TT_TRY(spec.dtype, sched::parse_dtype(a.dtype));
  TT_TRY(spec.bytes, parse_size(a.size).context("--size"));
  TT_TRY(algo::AlgorithmOptions opts, algorithm_options_of(a.algorithm));
  TT_TRY(opts.memory, simulation_budget());
  TT_TRY(auto algorithm, algo::make_algorithm(a.algo, opts, spec.collective));
  TT_TRY(topo::ClusterSpec cluster_spec, resolve_cluster(a.cluster));
  TT_TRY_VOID(apply_calibration_file(a.calibration, cluster_spec).context("--calibration"));
  TT_TRY(const topo::Topology topology, topo::build_topology(cluster_spec));
  TT_TRY(const algo::RankLayout layout, algo::layout_from_topology(topology, opts.channels));
  spec.ranks = layout.ranks();
  TT_TRY_VOID(spec.check());
  // A trace shows every transfer: it needs the full schedule.
  TT_TRY(
      const tune::CollectiveSimulation sim,
      tune::simulate_collective(*algorithm, spec, layout, topology, sim_options,
                                a.trace.empty() ? tune::Generation::Auto : tune::Generation::Full));
  const std::string cluster = cluster_spec.instance.name + " x " +
                              std::to_string(cluster_spec.hosts) + " (" +
                              topo::placement_name(cluster_spec.placement) + " placement" +
                              (a.calibration.empty() ? "" : ", calibration " + a.calibration) + ")";
  if (!a.trace.empty()) {
    TT_TRY(const std::string trace, chrome_trace_json(*sim.schedule, sim.result, topology));
    TT_TRY_VOID(write_file_atomically(a.trace, trace).context("--trace"));
  }
  if (a.format == OutputFormat::Json) return print_json(sim, topology, cluster, out);
  print_table(sim, topology, cluster, out);
  return {};
}

}  // namespace

CommandRun setup_simulate(CLI::App& sub) {
  auto a = std::make_shared<SimulateArgs>();
  add_cluster_flags(sub, a->cluster);
  sub.add_option("--algo", a->algo, "algorithm: " + algo::algorithm_names_text())->required();
  sub.add_option("--size", a->size, "buffer size: 8, 64K, 256M, 1G (powers of 1024)")->required();
  sub.add_option("--dtype", a->dtype, "fp32 (default), fp16, bf16");
  sub.add_option("--collective", a->collective,
                 "allreduce (default), reduce_scatter, allgather, broadcast");
  add_algorithm_flags(sub, a->algorithm);
  sub.add_option("--reduction", a->reduction,
                 "reduction cost: serial (default, after delivery), overlapped, none");
  sub.add_flag("--no-flow-caps", a->no_flow_caps, "ignore per-flow rate caps (AWS TCP)");
  add_format_option(sub, a->format, {OutputFormat::Table, OutputFormat::Json},
                    "table (default) or json");
  sub.add_option("--trace", a->trace, "write a Chrome/Perfetto trace of the transfers to FILE");
  sub.add_option("--calibration", a->calibration,
                 "calibration file from `topotune calibrate`: its physical link parameters "
                 "replace the link-class defaults (docs/calibration.md)");
  sub.footer(
      "Examples:\n"
      "  topotune simulate --instance p4d.24xlarge --nodes 4 --algo ring --size 1G\n"
      "  topotune simulate --instance p4d.24xlarge --nodes 4 --algo 'hierarchical(rhd)' "
      "--size 256M --format json\n"
      "  topotune simulate --cluster my.json --algo dbtree --size 64M --trace trace.json");
  return [a](std::ostream& out) { return run_simulate(*a, out); };
}

}  // namespace topotune::cli
