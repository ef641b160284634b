#include "cli/cluster_flags.h"

#include <utility>

#include "cli/path_flag.h"

namespace topotune::cli {
namespace {

Expected<void> check_nodes(int nodes) {
  if (nodes < 1 || nodes > topo::kMaxHosts) {
    return fail(Errc::InvalidArgument, "--nodes must be in 1.." + std::to_string(topo::kMaxHosts) +
                                           ", got " + std::to_string(nodes));
  }
  return {};
}

Expected<topo::ClusterSpec> with_nodes(const ClusterFlags& f, topo::ClusterSpec spec) {
  if (f.nodes_given) spec.hosts = f.nodes;  // the command line wins over the file
  return spec;
}

}  // namespace

bool any_cluster_flag(const ClusterFlags& f) {
  return !f.instance.empty() || !f.cluster_file.empty() || !f.placement.empty() || f.nodes_given;
}

Expected<void> check_cluster_flags(const ClusterFlags& f) {
  if (!f.cluster_file.empty() && (!f.instance.empty() || !f.placement.empty())) {
    const std::string flag = f.instance.empty() ? "--placement" : "--instance";
    return fail(Errc::InvalidArgument,
                flag + " would be ignored with --cluster (the file says it)");
  }
  if (f.nodes_given || f.cluster_file.empty()) TT_TRY_VOID(check_nodes(f.nodes));
  return {};
}

void add_cluster_flags(CLI::App& sub, ClusterFlags& f, bool with_placement) {
  sub.add_option("--instance", f.instance, "catalog instance type, e.g. p4d.24xlarge");
  sub.add_option_function<int>(
      "--nodes",
      [&f](int n) {
        f.nodes = n;
        f.nodes_given = true;
      },
      "number of nodes (hosts), 1..65536 (default 1; overrides the --cluster file's)");
  if (with_placement) {
    sub.add_option("--placement", f.placement,
                   "cluster (default), partition or spread: where the hosts sit, which changes "
                   "every algorithm's time (docs/cluster.md)");
  }
  sub.add_option("--cluster", f.cluster_file,
                 "cluster JSON file instead of --instance (docs/cluster.md)")
      ->check(non_empty_path());
}

Expected<topo::ClusterSpec> resolve_cluster(const ClusterFlags& f) {
  TT_TRY_VOID(check_cluster_flags(f));
  if (!f.cluster_file.empty()) {
    TT_TRY(topo::ClusterSpec spec, topo::load_cluster_file(f.cluster_file));
    return with_nodes(f, std::move(spec));
  }
  if (f.instance.empty()) {
    return fail(Errc::InvalidArgument, f.placement.empty()
                                           ? "give --instance NAME --nodes N, or --cluster FILE"
                                           : "--placement needs --instance");
  }
  TT_TRY(const topo::Placement placement,
         topo::parse_placement(f.placement.empty() ? "cluster" : f.placement));
  return topo::make_cluster_spec(f.instance, f.nodes, placement);
}

Expected<topo::ClusterSpec> resolve_cluster_text(const ClusterFlags& f, const std::string& text) {
  TT_TRY_VOID(check_cluster_flags(f));
  TT_TRY(topo::ClusterSpec spec, topo::parse_cluster_json(text, f.cluster_file));
  return with_nodes(f, std::move(spec));
}

Expected<topo::ClusterSpec> resolve_cluster_spec(const std::string& instance, int nodes,
                                                 const std::string& cluster_file) {
  return resolve_cluster(ClusterFlags{instance, cluster_file, "", nodes, true});
}

}  // namespace topotune::cli
