// ClusterSpec construction: catalog instance x hosts x placement with stated defaults, and the
// topotune.cluster/1 file format (docs/cluster.md).

#include "topology/cluster_spec.h"

#include <algorithm>

#include "topology/instance_catalog.h"
#include "topology/instance_loader.h"
#include "topology/instance_loader_detail.h"
#include "topology/model_defaults.h"
#include "topology/topology.h"

namespace topotune::topo {

Expected<ClusterSpec> make_cluster_spec(InstanceSpec instance, int hosts, Placement placement) {
  if (hosts < 1 || hosts > kMaxHosts)
    return fail(Errc::InvalidArgument, "node count " + std::to_string(hosts) + " out of range 1.." +
                                           std::to_string(kMaxHosts));
  ClusterSpec spec;
  spec.instance = std::move(instance);
  spec.hosts = hosts;
  spec.placement = placement;
  if (placement != Placement::Cluster) spec.fabric.oversubscription = kDefaultSpineOversubscription;
  if (placement == Placement::Cluster && hosts > kScalableUnitHosts) {
    // Beyond one scalable unit: rail-optimised leaves and a spine (model_defaults.h).
    spec.fabric.hosts_per_rack = kScalableUnitHosts;
    spec.fabric.rails_per_leaf =
        std::max(1, spec.instance.num_nics / std::max(1, spec.instance.num_gpus));
    spec.fabric.oversubscription = kScalableUnitOversubscription;
    // Beyond the largest two-tier design: pods of scalable units under a super-spine.
    if (hosts > kScalableUnitHosts * kTwoTierMaxScalableUnits) {
      spec.fabric.racks_per_pod = kScalableUnitsPerPod;
      spec.fabric.pod_oversubscription = kPodOversubscription;
    }
  }
  spec.link_params = default_link_params(placement);
  spec.link_params_set = true;
  return spec;
}

Expected<ClusterSpec> make_cluster_spec(const std::string& instance, int hosts,
                                        Placement placement) {
  if (hosts < 1 || hosts > kMaxHosts)
    return fail(Errc::InvalidArgument, "node count " + std::to_string(hosts) + " out of range 1.." +
                                           std::to_string(kMaxHosts));
  TT_TRY(InstanceSpec inst, find_instance(instance));
  return make_cluster_spec(std::move(inst), hosts, placement);
}

Expected<Topology> load_instance(const std::string& instance, int hosts, Placement placement) {
  TT_TRY(ClusterSpec spec, make_cluster_spec(instance, hosts, placement));
  return build_topology(spec);
}

namespace {

using detail::Json;
using detail::JsonPath;

Expected<void> read_fabric(const Json& v, const JsonPath& at, FabricParams& fabric) {
  TT_TRY_VOID(
      detail::check_object(v, at,
                           {"hosts_per_rack", "rails_per_leaf", "oversubscription", "racks_per_pod",
                            "pod_oversubscription", "superspine_latency_us"}));
  if (const Json* h = detail::find_member(v, "hosts_per_rack")) {
    TT_TRY(std::int64_t n, detail::read_int(*h, at / "hosts_per_rack", 1, kMaxHosts));
    fabric.hosts_per_rack = static_cast<int>(n);
  }
  if (const Json* r = detail::find_member(v, "rails_per_leaf")) {
    TT_TRY(std::int64_t n, detail::read_int(*r, at / "rails_per_leaf", 0, kMaxNicsPerHost));
    fabric.rails_per_leaf = static_cast<int>(n);
  }
  if (const Json* o = detail::find_member(v, "oversubscription")) {
    TT_TRY(fabric.oversubscription, detail::read_number(*o, at / "oversubscription", true));
    if (fabric.oversubscription < 1 || fabric.oversubscription > 1000)
      return (at / "oversubscription").error("must be in 1..1000", Errc::InvalidArgument);
  }
  if (const Json* p = detail::find_member(v, "racks_per_pod")) {
    TT_TRY(std::int64_t n, detail::read_int(*p, at / "racks_per_pod", 0, kMaxHosts));
    fabric.racks_per_pod = static_cast<int>(n);
  }
  if (const Json* o = detail::find_member(v, "pod_oversubscription")) {
    TT_TRY(fabric.pod_oversubscription, detail::read_number(*o, at / "pod_oversubscription", true));
    if (fabric.pod_oversubscription < 1 || fabric.pod_oversubscription > 1000)
      return (at / "pod_oversubscription").error("must be in 1..1000", Errc::InvalidArgument);
  }
  if (const Json* l = detail::find_member(v, "superspine_latency_us")) {
    TT_TRY(double us, detail::read_number(*l, at / "superspine_latency_us", false));
    if (us < 0 || us > 1e6) return (at / "superspine_latency_us").error("must be in 0..1e6");
    fabric.superspine_latency = microseconds(us);
  }
  return {};
}

Expected<void> read_link_params(const Json& v, const JsonPath& at, ClusterSpec& spec) {
  TT_TRY_VOID(
      detail::check_object(v, at, {"nvlink", "pcie", "cpu_interconnect", "network", "uplink"}));
  for (int k = 0; k < kNumLinkKinds; ++k) {
    const std::string name = link_kind_name(static_cast<LinkKind>(k));
    const Json* p = detail::find_member(v, name);
    if (!p) continue;
    const JsonPath pp = at / name;
    TT_TRY_VOID(detail::check_object(*p, pp, {"latency_us", "efficiency"}));
    LinkClassParams& out = spec.link_params[static_cast<std::size_t>(k)];
    if (const Json* l = detail::find_member(*p, "latency_us")) {
      TT_TRY(double us, detail::read_number(*l, pp / "latency_us", false));
      if (us < 0 || us > 1e6) return (pp / "latency_us").error("must be in 0..1e6");
      out.latency = microseconds(us);
    }
    if (const Json* e = detail::find_member(*p, "efficiency")) {
      TT_TRY(out.efficiency, detail::read_number(*e, pp / "efficiency", true));
      if (!(out.efficiency >= kMinEfficiency && out.efficiency <= 1)) {
        return (pp / "efficiency").error("must be in [0.001, 1]");
      }
    }
  }
  return {};
}

Expected<InstanceSpec> read_cluster_instance(const Json& v, const JsonPath& at) {
  if (v.is_string()) {
    auto inst = find_instance(v.get<std::string>());
    if (!inst) return at.error(inst.error().message, inst.error().code);
    return inst;
  }
  if (!v.is_object())
    return at.error("expected a catalog name or an instance object, got " +
                    detail::json_type_name(v));
  return detail::read_instance(v, at, "");
}

}  // namespace

Expected<ClusterSpec> parse_cluster_json(const std::string& text, const std::string& origin) {
  TT_TRY(Json doc, detail::parse_json_text(text, origin));
  const JsonPath root{&origin, ""};
  if (!doc.is_object()) return root.error("expected an object, got " + detail::json_type_name(doc));
  // The schema first: an instance file passed as a cluster file gets a message that says so.
  const Json* schema_v = detail::find_member(doc, "schema");
  if (!schema_v) return (root / "schema").error("missing");
  TT_TRY(std::string schema, detail::read_string(*schema_v, root / "schema"));
  if (schema != kClusterSchema)
    return (root / "schema")
        .error("expected \"" + std::string(kClusterSchema) + "\", got \"" + schema +
               "\" (docs/cluster.md)");
  TT_TRY_VOID(detail::check_object(
      doc, root,
      {"schema", "instance", "nodes", "placement", "fabric", "link_params", "overrides"}));
  for (const char* key : {"instance", "nodes"})
    if (!detail::find_member(doc, key)) return (root / key).error("missing");
  TT_TRY(InstanceSpec inst, read_cluster_instance(doc["instance"], root / "instance"));
  TT_TRY(std::int64_t nodes, detail::read_int(doc["nodes"], root / "nodes", 1, kMaxHosts));
  Placement placement = Placement::Cluster;
  if (const Json* p = detail::find_member(doc, "placement")) {
    TT_TRY(std::string name, detail::read_string(*p, root / "placement"));
    auto parsed = parse_placement(name);
    if (!parsed) return (root / "placement").error(parsed.error().message);
    placement = *parsed;
  }
  if (const Json* o = detail::find_member(doc, "overrides")) {
    if (!o->is_object()) return (root / "overrides").error("expected an object");
    for (auto it = o->begin(); it != o->end(); ++it)
      TT_TRY_VOID(detail::apply_override(inst, it.key(), it.value(), root / "overrides" / it.key(),
                                         "override in " + origin));
  }
  TT_TRY(ClusterSpec spec, make_cluster_spec(std::move(inst), static_cast<int>(nodes), placement));
  if (const Json* f = detail::find_member(doc, "fabric"))
    TT_TRY_VOID(read_fabric(*f, root / "fabric", spec.fabric));
  if (const Json* l = detail::find_member(doc, "link_params"))
    TT_TRY_VOID(read_link_params(*l, root / "link_params", spec));
  return spec;
}

Expected<void> apply_link_params_json(const std::string& text, const std::string& origin,
                                      ClusterSpec& spec) {
  TT_TRY(Json doc, detail::parse_json_text(text, origin));
  const JsonPath root{&origin, ""};
  return read_link_params(doc, root / "link_params", spec);
}

Expected<ClusterSpec> load_cluster_file(const std::string& path) {
  TT_TRY(std::string text, read_text_file(path));
  return parse_cluster_json(text, path);
}

}  // namespace topotune::topo
