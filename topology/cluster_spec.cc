// ClusterSpec construction (catalog lookups arrive with the instance loader).

#include "topology/cluster_spec.h"

#include "topology/model_defaults.h"
#include "topology/topology.h"

namespace topotune::topo {

Expected<ClusterSpec> make_cluster_spec(const std::string& instance, int, Placement) {
  return fail(Errc::NotFound, "unknown instance '" + instance + "' (catalog not built in yet)");
}

Expected<ClusterSpec> load_cluster_file(const std::string& path) {
  return fail(Errc::Unsupported, "cluster files are not supported yet: " + path);
}

Expected<ClusterSpec> parse_cluster_json(const std::string&, const std::string& origin) {
  return fail(Errc::Unsupported, "cluster files are not supported yet: " + origin);
}

Expected<Topology> load_instance(const std::string& instance, int hosts, Placement placement) {
  TT_TRY(ClusterSpec spec, make_cluster_spec(instance, hosts, placement));
  return build_topology(spec);
}

}  // namespace topotune::topo
