#pragma once
// --instance / --nodes / --placement / --cluster: the cluster a command runs on, with one rule
// for every command (they had five, with different defaults and overrides):
//   --instance NAME [--nodes N] [--placement P]   N defaults to 1, P to cluster;
//   --cluster FILE [--nodes N]                     N, when given, overrides the file's hosts;
//   --instance or --placement with --cluster is refused (the file states both);
//   N in 1..65536 (topo::kMaxHosts).

#include <CLI/CLI.hpp>
#include <string>

#include "core/expected.h"
#include "topology/cluster_spec.h"

namespace topotune::cli {

/// The four flags as given.
struct ClusterFlags {
  std::string instance;
  std::string cluster_file;
  std::string placement;  ///< empty: not given (cluster)
  int nodes = 1;
  bool nodes_given = false;  ///< --nodes was on the command line
};

/// Adds the four flags to `sub` (--placement only when `with_placement`).
void add_cluster_flags(CLI::App& sub, ClusterFlags& f, bool with_placement = true);

/// True when any of the four flags was given: a command with its own alternative to a
/// cluster (schedule's --ranks) refuses both, and resolves the flags by the rule otherwise.
bool any_cluster_flag(const ClusterFlags& f);

/// The rule's checks that need no file: flags that would be ignored, the node range.
Expected<void> check_cluster_flags(const ClusterFlags& f);

/// The cluster the flags describe, by the rule above; reads the cluster file when one is given.
Expected<topo::ClusterSpec> resolve_cluster(const ClusterFlags& f);

/// The same with the cluster file's text already read (a pipe or FIFO can be read only once).
Expected<topo::ClusterSpec> resolve_cluster_text(const ClusterFlags& f, const std::string& text);

/// For commands whose node count is known from their input (validate, calibrate: the log's):
/// `instance` x `nodes`, or the cluster file with `nodes` hosts.
Expected<topo::ClusterSpec> resolve_cluster_spec(const std::string& instance, int nodes,
                                                 const std::string& cluster_file);

}  // namespace topotune::cli
