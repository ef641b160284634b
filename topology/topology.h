#pragma once
// Topology: the cluster as an immutable directed graph.
//
// Vertices (NodeId) are devices: GPUs, NVSwitches, PCIe switches, CPU sockets, NICs, and the
// network's switches (a top-of-rack switch per rack; a spine when there is more than one
// rack). Edges (LinkId) are directed: a full-duplex cable is two links with independent
// capacity, in bytes/s per direction, and a latency per hop. Machines are called hosts here;
// rank r runs on GPU (r % gpus_per_host) of host (r / gpus_per_host).
//
// Routing is deterministic and precomputed per host type (as NCCL does), so route() costs
// O(hops) with no allocation. Rail-aware: a GPU reaches the network through the NIC on its own
// PCIe switch; when it has several NICs (p5: 4), `channel` picks one (channel % count), which
// is how parallel channels spread over rails. Without GPUDirect RDMA, inter-host traffic is
// staged through the host CPU (GPU -> CPU -> NIC).
//
// Boost.Graph is used inside topology/ only; this header does not expose it.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/strong_id.h"
#include "core/units.h"
#include "topology/cluster_spec.h"

namespace topotune::topo {

enum class DeviceKind : std::uint8_t {
  Gpu,
  NvSwitch,
  PcieSwitch,
  Cpu,
  Nic,
  TorSwitch,
  Spine,
  SuperSpine
};
const char* device_kind_name(DeviceKind k);

struct Device {
  DeviceKind kind = DeviceKind::Gpu;
  int host = -1;     ///< -1 for network switches
  int index = 0;     ///< local index within the host (GPU 3, NIC 1, socket 0) or rack number
  std::string name;  ///< unique, e.g. "h0/gpu3", "h1/nic0", "tor0", "spine"
};

struct Link {
  NodeId src;
  NodeId dst;
  LinkKind kind = LinkKind::Pcie;
  BytesPerSec bandwidth;  ///< effective: nominal x the class efficiency
  Seconds latency;
  BytesPerSec nominal;  ///< the hardware figure, before the class efficiency
};

/// A path: at most kMaxHops links, stored inline.
struct Route {
  static constexpr int kMaxHops = 16;
  std::array<LinkId, kMaxHops> links{};
  int size = 0;
  Seconds latency{0};      ///< sum of the links' latencies
  BytesPerSec bottleneck;  ///< min bandwidth along the path (0 for an empty route)
  std::span<const LinkId> view() const { return {links.data(), static_cast<std::size_t>(size)}; }
};

class Topology {
 public:
  Topology();  // an empty topology; use build_topology()
  ~Topology();
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  Topology(const Topology&);
  Topology& operator=(const Topology&);

  const ClusterSpec& spec() const;
  int num_hosts() const;
  int gpus_per_host() const;
  int num_ranks() const;  ///< hosts x gpus_per_host
  int num_racks() const;
  /// Leaf switches per rack: 1 (its top-of-rack switch) unless the fabric is rail-optimised
  /// (FabricParams::rails_per_leaf), then one per group of rails.
  int leaves_per_rack() const;
  /// Pods under a super-spine (FabricParams::racks_per_pod); 1 when there is no super-spine.
  int num_pods() const;
  /// Racks under one spine: a pod's (the last pod may have fewer), or all racks.
  int racks_per_pod() const;
  int rack_of_host(int host) const;
  /// Hosts per multi-node NVLink domain as built: InstanceSpec::nvlink_domain_hosts when the
  /// cluster has more than one host, else 1 (NVLink ends at the host). Domains are blocks of
  /// consecutive hosts; the last may be partial.
  int nvlink_domain_hosts() const;
  /// Multi-node NVLink domains (ceil(hosts / nvlink_domain_hosts())); 0 without any.
  int num_nvlink_domains() const;

  std::size_t num_devices() const;
  const Device& device(NodeId id) const;
  std::size_t num_links() const;
  const Link& link(LinkId id) const;
  /// Links leaving a device, in a fixed order.
  std::span<const LinkId> out_links(NodeId id) const;

  NodeId gpu_of(RankId r) const;
  int host_of(RankId r) const;
  int local_index(RankId r) const;
  /// The CPU socket of `host` that a parameter server on that host uses (socket 0).
  NodeId cpu_of_host(int host) const;

  /// The path from one device to another. `channel` selects among a GPU's NICs (rails).
  Route route(NodeId from, NodeId to, int channel = 0) const;
  /// A per-flow rate limit on this path, if any (AWS TCP: 10 Gbps in a cluster placement
  /// group, 5 Gbps outside; none for EFA/InfiniBand or inside a host).
  std::optional<BytesPerSec> flow_cap(NodeId from, NodeId to) const;

  /// Order of the GPUs of one host in ring `channel`: NVLink neighbours adjacent (on NVLink
  /// meshes such as p3.16xlarge, a cycle of NVLink edges only), PCIe-switch mates adjacent.
  const std::vector<int>& intra_host_ring(int channel = 0) const;
  /// Number of distinct intra-host rings discovered (channels cycle through them).
  int num_intra_host_rings() const;
  /// All ranks in ring order for `channel`: hosts contiguous, each in intra_host_ring order.
  std::vector<RankId> ring_order(int channel = 0) const;

  /// Local NIC indices of a GPU's rails (the NICs on its PCIe switch; nearest socket's if none).
  const std::vector<int>& nics_of_gpu(int local_gpu) const;

  /// Sum-reduction throughput of a GPU or CPU device (measured figure or model default).
  BytesPerSec reduce_bandwidth(NodeId device) const;
  /// Nominal NIC bandwidth of one host (all NICs, per direction).
  BytesPerSec host_nic_bandwidth() const;
  /// Bisection bandwidth of the inter-host network (per direction), 0 for one host.
  BytesPerSec bisection_bandwidth() const;

  /// Translation symmetry (topology_symmetry.cc): shifting every host by `host_period()`
  /// (mod num_hosts()) maps each device, link, route and flow cap onto one of the same kind,
  /// capacity and latency, and moves every link and host device (none is fixed). 0 when the
  /// network has no such shift short of num_hosts() (e.g. racks of unequal size).
  int host_period() const;
  /// The representative of a link's orbit under that shift: the same link of the first
  /// host_period() hosts (or of the first racks). Every orbit has num_hosts() / period links.
  LinkId link_orbit(LinkId id) const;
  /// The representative of a device's orbit (switches shared by all hosts map to themselves).
  NodeId device_orbit(NodeId id) const;

 private:
  friend class TopologyBuilder;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Builds the graph for a cluster spec. Errors: inconsistent instance data, hosts out of range.
Expected<Topology> build_topology(const ClusterSpec& spec);

/// Convenience: catalog instance x hosts x placement with default parameters.
Expected<Topology> load_instance(const std::string& instance, int hosts,
                                 Placement placement = Placement::Cluster);

/// A generic cluster for tests and `--ranks N`: `hosts` hosts of `gpus_per_host` GPUs on one
/// NVSwitch of `intra` bandwidth per GPU, one NIC of `nic` bandwidth per GPU, one switch.
Expected<Topology> make_uniform_topology(int hosts, int gpus_per_host, BytesPerSec intra,
                                         BytesPerSec nic, Seconds intra_latency,
                                         Seconds net_latency);

}  // namespace topotune::topo
