#include "cli/simulate_report.h"

#include <nlohmann/json.hpp>

#include "cli/reporter.h"
#include "core/quantity_parse.h"
#include "core/string_printf.h"

namespace topotune::cli {
namespace {

constexpr std::size_t kTopLinks = 5;

std::string link_name(const topo::Topology& t, LinkId id) {
  const topo::Link& l = t.link(id);
  return t.device(l.src).name + " -> " + t.device(l.dst).name;
}

// Links that carried traffic, busiest first (ties by id): SimResult::bottlenecks for all.
std::vector<LinkId> used_links(const sim::SimResult& r) { return r.bottlenecks(r.links.size()); }

// The table shows each link's figures as text (sizes, rates, durations), CSV as numbers in SI
// units, as the JSON has them.
const std::vector<Column>& link_columns() {
  static const std::vector<Column> columns = {{"link", "  %-32s", false},
                                              {"src", ""},
                                              {"dst", ""},
                                              {"kind", " %-16s"},
                                              {"bytes_text", " %10s", false},
                                              {"bytes", ""},
                                              {"capacity_text", " %12s", false},
                                              {"capacity_GBps", ""},
                                              {"busy_text", " %12s", false},
                                              {"busy_s", ""},
                                              {"active_s", ""},
                                              {"util_pct", " %5.1f%%", false},
                                              {"utilisation", ""}};
  return columns;
}

std::vector<Cell> link_cells(const SimulateReport& rep, LinkId id) {
  const topo::Topology& t = rep.topology;
  const topo::Link& l = t.link(id);
  const sim::LinkStats& st = rep.result.links[id.index()];
  const double util = rep.result.utilisation(id);
  return {link_name(t, id),
          t.device(l.src).name,
          t.device(l.dst).name,
          std::string(topo::link_kind_name(l.kind)),
          format_size(st.bytes),
          st.bytes.value,
          format_rate(l.bandwidth),
          l.bandwidth.gbps_bytes(),
          format_duration(st.busy),
          st.busy.value,
          st.active.value,
          100.0 * util,
          util};
}

std::vector<std::string> summary_lines(const SimulateReport& rep) {
  const tune::CollectiveSimulation& s = rep.sim;
  const sim::SimResult& r = rep.result;
  const auto& spec = r.spec;
  std::string lines = string_printf(
      "%-12s %s\n%-12s %s\n%-12s %s of %s %s on %d ranks\n%-12s %zu (%llu events)\n", "algorithm",
      s.algorithm.c_str(), "cluster", rep.cluster.c_str(), "collective",
      sched::collective_name(spec.collective), format_size(spec.bytes).c_str(),
      sched::dtype_name(spec.dtype), spec.ranks, "transfers", static_cast<std::size_t>(s.transfers),
      static_cast<unsigned long long>(r.events));
  lines += string_printf("%-12s %s\n%-12s %.3f GB/s\n%-12s %.3f GB/s\n", "time",
                         format_duration(r.makespan).c_str(), "algbw", r.algbw.gbps_bytes(),
                         "busbw", r.busbw.gbps_bytes());
  return {lines};
}

// JSON's head: the run's figures (the table's summary lines, as numbers in SI units).
nlohmann::ordered_json json_head(const SimulateReport& rep) {
  const sim::SimResult& r = rep.result;
  return {{"algorithm", rep.sim.algorithm},
          {"cluster", rep.cluster},
          {"collective", sched::collective_name(r.spec.collective)},
          {"bytes", r.spec.bytes.value},
          {"ranks", r.spec.ranks},
          {"transfers", rep.sim.transfers},
          {"time_s", r.makespan.value},
          {"algbw_GBps", r.algbw.gbps_bytes()},
          {"busbw_GBps", r.busbw.gbps_bytes()}};
}

}  // namespace

Expected<void> print_simulate_report(OutputFormat format, const SimulateReport& rep,
                                     std::ostream& out) {
  const bool table = format == OutputFormat::Table;
  const std::vector<LinkId> links =
      table ? rep.result.bottlenecks(kTopLinks) : used_links(rep.result);
  TableLayout layout{table ? summary_lines(rep) : std::vector<std::string>(), link_columns(),
                     json_head(rep), "links"};
  if (table && links.empty()) {  // nothing moved: the figures only
    for (const std::string& line : layout.preamble) out << line;
    return {};
  }
  if (table) {
    layout.preamble.push_back(
        "\nbottleneck links (busy = bytes / capacity; utilisation = busy / time)\n");
    layout.preamble.push_back(string_printf("  %-32s %-16s %10s %12s %12s %6s\n", "link", "kind",
                                            "bytes", "capacity", "busy", "util"));
  }
  const std::unique_ptr<Reporter> reporter = Reporter::make(format, out);
  reporter->begin(layout);
  for (LinkId id : links) reporter->row(link_cells(rep, id));
  reporter->end();
  return {};
}

}  // namespace topotune::cli
