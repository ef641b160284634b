#pragma once
// ClusterSpec: what the user asks about. An instance type x host count x placement, plus the
// network fabric's parameters and per-link-class model parameters (which calibration fits).
// Loadable from a JSON file (`--cluster FILE`) whose "instance" is a catalog name or a whole
// instance object, so people can describe their own on-prem machines.

#include <array>
#include <optional>
#include <string>

#include "core/expected.h"
#include "core/units.h"
#include "topology/instance_spec.h"

namespace topotune::topo {

/// AWS placement strategies. cluster: one non-blocking segment, lowest latency. partition and
/// spread: hosts on different racks, traffic crosses an oversubscribed spine tier.
enum class Placement { Cluster, Partition, Spread };
const char* placement_name(Placement p);
Expected<Placement> parse_placement(const std::string& name);

/// The classes of links the builder creates. Calibration fits one LinkClassParams per class.
enum class LinkKind : std::uint8_t {
  NvLink,           ///< GPU<->GPU direct or GPU<->NVSwitch
  Pcie,             ///< GPU/NIC<->PCIe switch, switch<->CPU, device<->CPU
  CpuInterconnect,  ///< socket<->socket
  Network,          ///< NIC<->top-of-rack (or the cluster's single segment switch)
  Uplink,           ///< switch<->switch: leaf<->spine, spine<->super-spine
};
inline constexpr int kNumLinkKinds = 5;
const char* link_kind_name(LinkKind k);

/// Model parameters of one link class: the latency of one hop, and the share of the nominal
/// bandwidth a transfer achieves (protocol/framing overheads). Defaults are stated assumptions
/// (documented in docs/model.md), overridable by --cluster files and calibration.
struct LinkClassParams {
  Seconds latency{0};
  double efficiency = 1.0;
};

/// The lowest efficiency any input may state, of a link class here or of the NCCL model's
/// parameters: 0.1 % of a nominal rate is below any link that works, and a denormal
/// (5e-324) would turn times into inf and shares into NaN (docs/limits.md).
inline constexpr double kMinEfficiency = 1e-3;

/// The network outside the hosts: leaves, a spine when there is more than one leaf, and a
/// super-spine when the racks are grouped into pods.
/// A rack (a scalable unit) is a block of consecutive hosts. Its NICs meet either one switch
/// (rails_per_leaf 0, a top-of-rack switch) or, rail-optimised, one leaf per group of
/// `rails_per_leaf` NIC indices: NIC n of every host of the rack on leaf n / rails_per_leaf,
/// so same-rail traffic inside the rack is one hop and anything else crosses the spine.
/// Third tier (racks_per_pod > 0 and more than one pod): a pod is a block of consecutive racks
/// whose leaves share one spine (a spine-leaf group); pods meet at the super-spine, so traffic
/// between pods crosses leaf -> spine -> super-spine -> spine -> leaf. Each tier has its own
/// oversubscription and latency per hop.
struct FabricParams {
  int hosts_per_rack = 0;             ///< 0: the placement's default (all in one for cluster)
  int rails_per_leaf = 0;             ///< 0: one switch per rack; k: a leaf per k NIC indices
  double oversubscription = 1.0;      ///< leaf uplink = leaf NIC bandwidth / oversubscription
  int racks_per_pod = 0;              ///< 0: one spine for all racks; k: pods of k racks
  double pod_oversubscription = 1.0;  ///< pod uplink = its leaves' uplinks / this
  std::optional<Seconds> superspine_latency;  ///< per spine<->super-spine hop (default: uplink's)
  std::optional<BytesPerSec> per_flow_cap;    ///< cap per flow (AWS TCP limits); set by builder
};

struct ClusterSpec {
  InstanceSpec instance;
  int hosts = 1;
  Placement placement = Placement::Cluster;
  FabricParams fabric;
  std::array<LinkClassParams, kNumLinkKinds> link_params{};  ///< indexed by LinkKind
  bool link_params_set = false;  ///< false: the builder fills the defaults for the placement

  LinkClassParams& params(LinkKind k) { return link_params[static_cast<int>(k)]; }
  const LinkClassParams& params(LinkKind k) const { return link_params[static_cast<int>(k)]; }
};

/// Largest host count accepted; beyond it a request is refused as absurd.
inline constexpr int kMaxHosts = 65536;

/// A ClusterSpec for a catalog instance with the placement's stated defaults.
Expected<ClusterSpec> make_cluster_spec(const std::string& instance, int hosts,
                                        Placement placement = Placement::Cluster);

/// A ClusterSpec for an already-loaded instance (e.g. a custom one) with the placement's
/// stated defaults: oversubscription 4:1 off cluster placement, default link parameters.
Expected<ClusterSpec> make_cluster_spec(InstanceSpec instance, int hosts,
                                        Placement placement = Placement::Cluster);

/// The schema string a cluster file must carry.
inline constexpr const char* kClusterSchema = "topotune.cluster/1";

/// Reads a cluster JSON file (schema in docs/cluster.md). Errors carry file:line:column.
Expected<ClusterSpec> load_cluster_file(const std::string& path);
/// Same, from text (`origin` names it in messages).
Expected<ClusterSpec> parse_cluster_json(const std::string& text, const std::string& origin);

/// Applies a `link_params` object (the cluster file's section, `{class: {latency_us,
/// efficiency}}`, given as JSON text) to `spec` field by field, with the cluster file's checks.
/// Calibration files carry the same section. Errors read "<origin>: link_params.<field>: ...".
Expected<void> apply_link_params_json(const std::string& text, const std::string& origin,
                                      ClusterSpec& spec);

}  // namespace topotune::topo
