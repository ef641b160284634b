#pragma once
// Private to topology/: the representation behind Topology. Not installed, not included by
// other modules. (Boost.Graph runs on the host template in host_routes.cc; the cluster itself
// is stored as flat arrays, which is all route() and the simulator need.)
//
// Layout: every host has the same devices and links in the same order (a host template), so
// device and link ids are `host * per_host + local`. The network switches (ToRs, then the
// spines, the super-spine) follow the hosts; the leaf uplinks follow the host link blocks, then
// the pod uplinks. Routes inside a host are computed once on the template (Dijkstra) and
// shifted by the host's base id; inter-host routes are composed as src -> egress NIC -> leaf ->
// [spine -> [super-spine -> spine] -> leaf] -> NIC -> dst, so route() is O(hops) and nothing
// is precomputed per device pair of the cluster.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "topology/topology.h"

namespace topotune::topo {

/// A route inside one host: a range of `HostTemplate::hops` (local link indices).
struct LocalRoute {
  std::int32_t offset = 0;
  std::int32_t size = 0;
};

/// The devices and links of one host, in local indices, with its precomputed routes.
struct HostTemplate {
  int num_devices = 0;
  int num_links = 0;  ///< includes each NIC's two links to its ToR (the last 2 x nics)
  std::vector<int> gpu_local, nic_local, cpu_local, pcie_local;
  int nvswitch_local = -1;
  std::vector<int> nic_up_link, nic_down_link;  ///< local link index NIC->ToR, ToR->NIC
  std::vector<int> hops;                        ///< flat storage of LocalRoute ranges
  std::vector<LocalRoute> routes;               ///< [src_local * num_devices + dst_local]
  std::vector<LocalRoute> egress;               ///< [src_local * nics + nic]: to a NIC
  std::vector<LocalRoute> ingress;              ///< [nic * num_devices + dst_local]
  std::vector<std::vector<int>> device_nics;    ///< NICs a local device uses, by preference
};

struct Topology::Impl {
  ClusterSpec spec;
  std::vector<Device> devices;
  std::vector<Link> links;
  std::vector<std::int32_t> out_offsets;  ///< CSR: out_ids[out_offsets[v] .. out_offsets[v+1])
  std::vector<LinkId> out_ids;

  int hosts = 0;
  int gpus_per_host = 0;
  HostTemplate tmpl;
  std::vector<int> rack_of_host;
  /// The leaves: rack r's leaf for NIC group g is tor_of_rack[r * leaves_per_rack + g] (one
  /// per rack, its top-of-rack switch, unless FabricParams::rails_per_leaf splits the rails).
  std::vector<NodeId> tor_of_rack;
  int leaves_per_rack = 1;
  int nics_per_leaf = 1;  ///< NIC indices per leaf (all when one per rack)
  /// Spines: one per pod (one in all without a super-spine); none when there is one leaf.
  std::vector<NodeId> spines;
  std::vector<LinkId> uplink_up, uplink_down;  ///< per leaf: leaf->spine, spine->leaf
  BytesPerSec uplink_bandwidth;                ///< nominal, per leaf and direction
  int racks_per_pod = 1;                       ///< racks under one spine (all without pods)
  NodeId superspine;                           ///< invalid unless there are two pods or more
  std::vector<LinkId> pod_up, pod_down;        ///< per pod: spine->super-spine and back
  BytesPerSec pod_uplink_bandwidth;            ///< nominal, per pod and direction
  int host_period = 0;                         ///< Topology::host_period(), set by the builder
  /// Multi-node NVLink domains (InstanceSpec::nvlink_domain_hosts > 1 on an NVSwitch host, and
  /// more than one host): a domain switch per block of `domain_hosts` consecutive hosts, which
  /// every host's NVSwitch of the block joins by one non-blocking trunk. Its links follow the
  /// pod uplinks, up then down per host. Empty otherwise, and domain_hosts is 1.
  int domain_hosts = 1;
  std::vector<NodeId> domain_switch;           ///< per domain
  std::vector<LinkId> domain_up, domain_down;  ///< per host: its NVSwitch -> domain, and back

  std::vector<std::vector<int>> rings;        ///< intra-host rings (local GPU indices)
  std::vector<std::vector<int>> nics_of_gpu;  ///< per local GPU

  NodeId device_id(int host, int local) const { return NodeId(host * tmpl.num_devices + local); }
  LinkId link_id(int host, int local) const { return LinkId(host * tmpl.num_links + local); }
  bool in_host(NodeId id) const { return id.value < hosts * tmpl.num_devices; }
  int num_pods() const { return static_cast<int>(spines.size()); }
  /// The pod of leaf `leaf` (an index into tor_of_rack).
  int pod_of_leaf(int leaf) const { return leaf / leaves_per_rack / racks_per_pod; }
  /// A switch's pod: a leaf's or a spine's; -1 for the super-spine, which is above every pod.
  int pod_of_switch(const Device& d) const {
    if (d.kind == DeviceKind::TorSwitch) return pod_of_leaf(d.index);
    if (d.kind == DeviceKind::Spine) return d.index;
    return -1;
  }
  /// Leaves and pods in one translation period of hosts (host_period: whole racks, and whole
  /// pods under a super-spine); {1, 1} with one switch.
  std::pair<std::size_t, std::size_t> leaves_and_pods_per_period() const {
    if (spines.empty()) return {1, 1};
    const int racks = static_cast<int>(tor_of_rack.size()) / leaves_per_rack;
    const int racks_per_period = host_period / (hosts / racks);
    return {static_cast<std::size_t>(racks_per_period * leaves_per_rack),
            static_cast<std::size_t>(std::max(1, racks_per_period / racks_per_pod))};
  }
  /// Whether GPUs of hosts `a` and `b` (different hosts) reach each other over NVLink.
  bool same_nvlink_domain(int a, int b) const {
    return !domain_switch.empty() && a / domain_hosts == b / domain_hosts;
  }
  /// Whether `a` and `b` are GPUs of two hosts of one NVLink domain (NVLink, not the NICs).
  bool nvlink_peers(NodeId a, NodeId b) const {
    const int nd = tmpl.num_devices;
    return !domain_switch.empty() && in_host(a) && in_host(b) && a.value / nd != b.value / nd &&
           same_nvlink_domain(a.value / nd, b.value / nd) &&
           devices[a.index()].kind == DeviceKind::Gpu && devices[b.index()].kind == DeviceKind::Gpu;
  }
  /// The leaf that NIC `nic` of `host` is cabled to.
  NodeId leaf_of(int host, int nic) const {
    return tor_of_rack[static_cast<std::size_t>(
        rack_of_host[static_cast<std::size_t>(host)] * leaves_per_rack + nic / nics_per_leaf)];
  }
};

/// Computes the template's routes (Dijkstra on the host graph; GPUs and NICs are never
/// transit) and the egress/ingress routes (staged through the CPU without GPUDirect RDMA).
/// `links` are the template host's links (host 0). Errors: a device that cannot reach another.
Expected<void> compute_host_routes(HostTemplate& tmpl, const std::vector<Device>& devices,
                                   const std::vector<Link>& links, const InstanceSpec& inst);

/// Intra-host GPU rings for the instance (ring_discovery.cc).
std::vector<std::vector<int>> discover_intra_host_rings(const InstanceSpec& inst);

}  // namespace topotune::topo
