#include "cli/nccl_common.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "core/input_file.h"
#include "measurement/nccl_tests_parser.h"
#include "topology/cluster_spec.h"

namespace topotune::cli {
namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string lower(std::string_view s) {
  std::string l;
  for (char c : s) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l;
}

// Case-insensitive, as NCCL_PROTO; the names are nccl_proto_name's, the protocols' one table.
Expected<algo::NcclProto> parse_proto(const std::string& s) {
  for (int i = 0; i < algo::kNumNcclProtos; ++i) {
    const auto p = static_cast<algo::NcclProto>(i);
    if (lower(s) == lower(algo::nccl_proto_name(p))) return p;
  }
  return fail(Errc::InvalidArgument, "unknown NCCL protocol '" + s + "' (LL, LL128, Simple)");
}

/// NCCL's grammar: a list selects; a leading '^' excludes the list instead.
template <class T, class Parse>
Expected<std::vector<T>> select(const std::string& text, int count, Parse parse) {
  std::string body = text;
  const bool exclude = !body.empty() && body.front() == '^';
  if (exclude) body.erase(0, 1);
  std::vector<T> listed;
  for (const std::string& item : split_list(body)) {
    TT_TRY(T v, parse(item));
    listed.push_back(v);
  }
  if (!exclude) return listed;
  std::vector<T> out;
  for (int i = 0; i < count; ++i) {
    const T v = static_cast<T>(i);
    if (std::find(listed.begin(), listed.end(), v) == listed.end()) out.push_back(v);
  }
  if (out.empty()) return fail(Errc::InvalidArgument, "'" + text + "' excludes everything");
  return out;
}

}  // namespace

Expected<algo::NcclSystem> resolve_nccl_system(const std::string& instance, int nodes,
                                               const std::string& cluster_file) {
  TT_TRY(const topo::ClusterSpec spec, resolve_cluster_spec(instance, nodes, cluster_file));
  return algo::nccl_system_from_cluster(spec);
}

Expected<algo::NcclOptions> make_nccl_options(const std::string& version, const std::string& algos,
                                              const std::string& protos) {
  algo::NcclOptions o;
  if (!version.empty()) {
    TT_TRY(o.version, algo::parse_nccl_version(version));
  }
  TT_TRY(o.algos, select<algo::NcclAlgo>(algos, algo::kNumNcclAlgos, algo::parse_nccl_algo));
  TT_TRY(o.protos, select<algo::NcclProto>(protos, algo::kNumNcclProtos, parse_proto));
  return o;
}

Expected<int> nodes_of(const rt::Measurement& m, std::optional<int> nodes, int gpus_per_node) {
  if (nodes) return *nodes;
  if (m.nodes) return *m.nodes;
  if (gpus_per_node > 0 && m.ranks % gpus_per_node == 0) return m.ranks / gpus_per_node;
  return fail(Errc::InvalidArgument, "cannot tell the node count from the log: give --nodes");
}

Expected<std::optional<sched::Collective>> parse_collective_flag(const std::string& text) {
  if (text.empty()) return std::optional<sched::Collective>();
  TT_TRY(const sched::Collective c, sched::parse_collective(text).context("--collective"));
  return std::optional<sched::Collective>(c);
}

Expected<rt::Measurement> load_measurement(const std::string& nccl_tests_log,
                                           const std::string& measured_json,
                                           std::optional<sched::Collective> collective) {
  if (nccl_tests_log.empty() == measured_json.empty()) {
    return fail(Errc::InvalidArgument, "give exactly one of --nccl-tests LOG or --measured FILE");
  }
  if (!nccl_tests_log.empty()) {
    rt::NcclTestsParseOptions opt;
    opt.collective = collective;
    return rt::load_nccl_tests_log(nccl_tests_log, opt);
  }
  TT_TRY(const std::string text, read_input_file(measured_json, "measurement"));
  TT_TRY(rt::Measurement m, rt::measurement_from_json(text, measured_json));
  if (collective && *collective != m.collective) {
    return fail(Errc::InvalidArgument,
                "--collective " + std::string(sched::collective_name(*collective)) + ": " +
                    measured_json + " measured " + sched::collective_name(m.collective));
  }
  return m;
}

}  // namespace topotune::cli
