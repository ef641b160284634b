#include "cli/predict_report.h"

#include <algorithm>

#include "cli/reporter.h"
#include "core/string_printf.h"

namespace topotune::cli {
namespace {

const std::vector<Column>& predict_columns() {
  static const std::vector<Column> columns = {{"bytes", "%12lld"},       {"count", "  %12lld"},
                                              {"type", "     %s"},       {"time_us", " %10.2f"},
                                              {"algbw_GBps", "  %6.2f"}, {"busbw_GBps", "  %6.2f"},
                                              {"algorithm", "  %-9s"},   {"protocol", "  %s"}};
  return columns;
}

/// The count column as nccl-tests prints it (src/common.cu setupArgs and each test's
/// GetCollByteCount, NVIDIA/nccl-tests v2.17.6): allgather and reduce_scatter print the
/// whole buffer as size and one rank's elements as count, (bytes / 4 / ranks) rounded down to
/// 16 bytes (src/all_gather.cu, src/reduce_scatter.cu); the others the buffer's elements.
std::int64_t printed_count(const PredictReport& r, std::int64_t bytes) {
  const std::int64_t elements = bytes / 4;  // the table's type column: float
  if (r.collective != sched::Collective::Allgather &&
      r.collective != sched::Collective::ReduceScatter) {
    return elements;
  }
  return (elements / std::max(1, r.ranks)) & ~std::int64_t{3};  // & -(16 / eltSize)
}

std::vector<std::string> candidate_lines(const algo::NcclPrediction& p) {
  std::vector<std::string> lines;
  for (const algo::NcclCandidate& c : p.candidates) {
    if (!c.enabled) {
      lines.push_back(string_printf("#     %-9s %-6s  disabled: %s\n", algo::nccl_algo_name(c.algo),
                                    algo::nccl_proto_name(c.proto), c.why_disabled.c_str()));
    } else {
      lines.push_back(string_printf(
          "#     %-9s %-6s  %12.2f us  (latency %9.2f us, %2d channels, bound by %s; NCCL's "
          "estimate %.2f us)%s\n",
          algo::nccl_algo_name(c.algo), algo::nccl_proto_name(c.proto), c.time.us(), c.latency.us(),
          c.channels, c.bottleneck.c_str(), c.nccl_estimate.us(),
          c.algo == p.chosen.algo && c.proto == p.chosen.proto
              ? ("  <= chosen by " + p.chosen_by).c_str()
              : ""));
    }
  }
  return lines;
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
      j["nccl_estimate_us"] = c.nccl_estimate.us();
    } else {
      j["why_disabled"] = c.why_disabled;
    }
    arr.push_back(std::move(j));
  }
  return arr;
}

}  // namespace

void print_predict_report(const PredictReport& r, OutputFormat format, std::ostream& out) {
  const std::unique_ptr<Reporter> reporter = Reporter::make(format, out);
  reporter->begin({r.title,
                   predict_columns(),
                   {{"instance", r.instance},
                    {"nodes", r.nodes},
                    {"ranks", r.ranks},
                    {"collective", sched::collective_name(r.collective)}}});
  for (const PredictRow& row : r.rows) {
    const bool explain = row.explained.has_value();
    reporter->row({row.bytes, printed_count(r, row.bytes), std::string("float"), row.time_us,
                   row.algbw, row.busbw, row.algorithm, row.protocol},
                  explain ? candidate_lines(*row.explained) : std::vector<std::string>(),
                  explain ? nlohmann::ordered_json{{"candidates", candidates_json(*row.explained)}}
                          : nlohmann::ordered_json());
  }
  reporter->end();
}

}  // namespace topotune::cli
