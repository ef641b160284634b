// build_topology: ClusterSpec -> Topology. Lays out every host identically (see
// topology_impl.h), then the network tier the placement asks for, then precomputes the host
// template's routes, the intra-host rings and each GPU's rails.

#include <algorithm>
#include <numeric>
#include <string>

#include "topology/instance_validate.h"
#include "topology/model_defaults.h"
#include "topology/topology_impl.h"

namespace topotune::topo {

class TopologyBuilder {
 public:
  explicit TopologyBuilder(ClusterSpec spec) : impl_(std::make_unique<Topology::Impl>()) {
    impl_->spec = std::move(spec);
  }
  Expected<Topology> build();

 private:
  const InstanceSpec& inst() const { return impl_->spec.instance; }
  NodeId add_device(DeviceKind kind, int host, int index, std::string name);
  void add_cable(NodeId a, NodeId b, LinkKind kind, BytesPerSec nominal);
  void add_cable(NodeId a, NodeId b, LinkKind kind, BytesPerSec nominal, Seconds latency);
  void add_host(int h);
  void add_host_pcie(int h, int base);
  void place_racks();
  void add_network();
  void add_superspine();
  void add_nvlink_domains();
  void finish_graph();
  int host_period() const;
  int network_period() const;
  Expected<void> finish_template();

  std::unique_ptr<Topology::Impl> impl_;
};

NodeId TopologyBuilder::add_device(DeviceKind kind, int host, int index, std::string name) {
  impl_->devices.push_back(Device{kind, host, index, std::move(name)});
  return NodeId(static_cast<std::int32_t>(impl_->devices.size() - 1));
}

void TopologyBuilder::add_cable(NodeId a, NodeId b, LinkKind kind, BytesPerSec nominal) {
  add_cable(a, b, kind, nominal, impl_->spec.params(kind).latency);
}

// A cable whose latency per hop is not its class's (the super-spine tier's own).
void TopologyBuilder::add_cable(NodeId a, NodeId b, LinkKind kind, BytesPerSec nominal,
                                Seconds latency) {
  const LinkClassParams& p = impl_->spec.params(kind);
  for (auto [s, d] : {std::pair{a, b}, std::pair{b, a}})
    impl_->links.push_back(Link{s, d, kind, nominal * p.efficiency, latency, nominal});
}

// Devices: GPUs, [NVSwitch], PCIe switches, CPU sockets, NICs. Links: NVLink, PCIe, socket
// interconnect, then each NIC's cable to its ToR (its ToR is filled in by add_network()).
void TopologyBuilder::add_host(int h) {
  const InstanceSpec& in = inst();
  const int base = static_cast<int>(impl_->devices.size());
  const std::string p = "h" + std::to_string(h) + "/";
  for (int g = 0; g < in.num_gpus; ++g)
    add_device(DeviceKind::Gpu, h, g, p + "gpu" + std::to_string(g));
  auto gpu = [&](int g) { return NodeId(base + g); };
  if (in.fabric == IntraFabric::NvSwitch) {
    const NodeId sw = add_device(DeviceKind::NvSwitch, h, 0, p + "nvswitch");
    for (int g = 0; g < in.num_gpus; ++g)
      add_cable(gpu(g), sw, LinkKind::NvLink, in.nvlink_bandwidth_per_link * in.nvlinks_per_gpu);
  } else if (in.fabric == IntraFabric::NvLinkMesh) {
    for (const NvLinkPair& pr : in.nvlink_pairs)
      add_cable(gpu(pr.a), gpu(pr.b), LinkKind::NvLink, in.nvlink_bandwidth_per_link * pr.links);
  }
  add_host_pcie(h, base);
}

void TopologyBuilder::add_host_pcie(int h, int base) {
  const InstanceSpec& in = inst();
  const std::string p = "h" + std::to_string(h) + "/";
  const BytesPerSec pcie = in.pcie_bandwidth.value_or(default_pcie_bandwidth(in));
  const int sw_base = static_cast<int>(impl_->devices.size());
  for (std::size_t s = 0; s < in.pcie_switches.size(); ++s)
    add_device(DeviceKind::PcieSwitch, h, static_cast<int>(s), p + "pcie" + std::to_string(s));
  const int cpu_base = static_cast<int>(impl_->devices.size());
  for (int c = 0; c < in.cpu_sockets; ++c)
    add_device(DeviceKind::Cpu, h, c, p + "cpu" + std::to_string(c));
  const int nic_base = static_cast<int>(impl_->devices.size());
  for (int n = 0; n < in.num_nics; ++n)
    add_device(DeviceKind::Nic, h, n, p + "nic" + std::to_string(n));
  std::vector<bool> gpu_done(static_cast<std::size_t>(in.num_gpus));
  std::vector<bool> nic_done(static_cast<std::size_t>(in.num_nics));
  for (std::size_t s = 0; s < in.pcie_switches.size(); ++s) {
    const PcieSwitchSpec& sw = in.pcie_switches[s];
    const NodeId sid(sw_base + static_cast<int>(s));
    for (int g : sw.gpus)
      add_cable(NodeId(base + g), sid, LinkKind::Pcie, pcie), gpu_done[g] = true;
    for (int n : sw.nics)
      add_cable(NodeId(nic_base + n), sid, LinkKind::Pcie, pcie), nic_done[n] = true;
    add_cable(sid, NodeId(cpu_base + sw.socket), LinkKind::Pcie, pcie);
  }
  for (int g = 0; g < in.num_gpus; ++g)
    if (!gpu_done[g])
      add_cable(NodeId(base + g), NodeId(cpu_base + in.gpu_socket[g]), LinkKind::Pcie, pcie);
  for (int n = 0; n < in.num_nics; ++n)
    if (!nic_done[n])
      add_cable(NodeId(nic_base + n), NodeId(cpu_base + in.nic_socket[n]), LinkKind::Pcie, pcie);
  const BytesPerSec qpi =
      in.cpu_interconnect_bandwidth.value_or(gbyte_per_sec(kDefaultCpuInterconnectGBps));
  for (int a = 0; a < in.cpu_sockets; ++a)
    for (int b = a + 1; b < in.cpu_sockets; ++b)
      add_cable(NodeId(cpu_base + a), NodeId(cpu_base + b), LinkKind::CpuInterconnect, qpi);
  // NIC <-> ToR; the ToR end is patched in add_network() once the racks exist.
  for (int n = 0; n < in.num_nics; ++n)
    add_cable(NodeId(nic_base + n), NodeId(), LinkKind::Network, in.nic_bandwidth);
}

void TopologyBuilder::place_racks() {
  Topology::Impl& t = *impl_;
  const int hosts = t.hosts;
  int racks = 1;
  if (t.spec.fabric.hosts_per_rack > 0) {
    racks = (hosts + t.spec.fabric.hosts_per_rack - 1) / t.spec.fabric.hosts_per_rack;
  } else if (t.spec.placement == Placement::Partition) {
    racks = std::min(kMaxPartitionRacks, hosts);
  } else if (t.spec.placement == Placement::Spread) {
    racks = hosts;
  }
  t.rack_of_host.resize(static_cast<std::size_t>(hosts));
  for (int h = 0; h < hosts; ++h) {
    // Contiguous, balanced blocks, so that ring neighbours share a rack where possible.
    t.rack_of_host[h] = t.spec.fabric.hosts_per_rack > 0
                            ? h / t.spec.fabric.hosts_per_rack
                            : static_cast<int>(static_cast<std::int64_t>(h) * racks / hosts);
  }
  const int nics = inst().num_nics, split = t.spec.fabric.rails_per_leaf;
  t.nics_per_leaf = split > 0 && split < nics ? split : std::max(1, nics);
  t.leaves_per_rack = (nics + t.nics_per_leaf - 1) / t.nics_per_leaf;
  for (int r = 0; r < racks; ++r) {
    for (int g = 0; g < t.leaves_per_rack; ++g) {
      const int leaf = r * t.leaves_per_rack + g;
      const std::string name = t.leaves_per_rack == 1
                                   ? "tor" + std::to_string(r)
                                   : "leaf" + std::to_string(r) + "." + std::to_string(g);
      t.tor_of_rack.push_back(add_device(DeviceKind::TorSwitch, -1, leaf, name));
    }
  }
  if (t.tor_of_rack.size() < 2) return;
  // A spine per pod of racks_per_pod racks when that makes two pods or more, else one spine.
  const int per_pod = t.spec.fabric.racks_per_pod;
  t.racks_per_pod = per_pod > 0 && per_pod < racks ? per_pod : racks;
  const int pods = (racks + t.racks_per_pod - 1) / t.racks_per_pod;
  for (int p = 0; p < pods; ++p)
    t.spines.push_back(
        add_device(DeviceKind::Spine, -1, p, pods == 1 ? "spine" : "spine" + std::to_string(p)));
  if (pods > 1) t.superspine = add_device(DeviceKind::SuperSpine, -1, 0, "superspine");
}

void TopologyBuilder::add_network() {
  Topology::Impl& t = *impl_;
  place_racks();
  const int nics = inst().num_nics;
  for (int h = 0; h < t.hosts; ++h) {
    for (int n = 0; n < nics; ++n) {
      const NodeId leaf = t.leaf_of(h, n);
      t.links[t.link_id(h, t.tmpl.nic_up_link[n]).index()].dst = leaf;
      t.links[t.link_id(h, t.tmpl.nic_down_link[n]).index()].src = leaf;
    }
  }
  if (t.spines.empty()) return;
  const int racks = static_cast<int>(t.tor_of_rack.size()) / t.leaves_per_rack;
  std::vector<int> per_rack(static_cast<std::size_t>(racks), 0);
  for (int r : t.rack_of_host) ++per_rack[r];
  const int largest = *std::max_element(per_rack.begin(), per_rack.end());
  const double oversub = t.spec.fabric.oversubscription > 0 ? t.spec.fabric.oversubscription : 1.0;
  // Every leaf gets the uplink its fullest sibling needs: switches are bought in one model.
  t.uplink_bandwidth =
      inst().nic_bandwidth * (static_cast<double>(t.nics_per_leaf) * largest / oversub);
  for (std::size_t leaf = 0; leaf < t.tor_of_rack.size(); ++leaf) {
    t.uplink_up.push_back(LinkId(static_cast<std::int32_t>(t.links.size())));
    t.uplink_down.push_back(LinkId(static_cast<std::int32_t>(t.links.size() + 1)));
    const NodeId spine = t.spines[static_cast<std::size_t>(t.pod_of_leaf(static_cast<int>(leaf)))];
    add_cable(t.tor_of_rack[leaf], spine, LinkKind::Uplink, t.uplink_bandwidth);
  }
  if (t.superspine.valid()) add_superspine();
}

// Every pod's spine to the super-spine: the uplinks of the fullest pod's leaves over the pod
// oversubscription, at the super-spine tier's latency (the uplink class's unless given).
void TopologyBuilder::add_superspine() {
  Topology::Impl& t = *impl_;
  const FabricParams& f = t.spec.fabric;
  const double oversub = f.pod_oversubscription > 0 ? f.pod_oversubscription : 1.0;
  t.pod_uplink_bandwidth =
      t.uplink_bandwidth * (static_cast<double>(t.racks_per_pod * t.leaves_per_rack) / oversub);
  const Seconds latency = f.superspine_latency.value_or(t.spec.params(LinkKind::Uplink).latency);
  for (const NodeId spine : t.spines) {
    t.pod_up.push_back(LinkId(static_cast<std::int32_t>(t.links.size())));
    t.pod_down.push_back(LinkId(static_cast<std::int32_t>(t.links.size() + 1)));
    add_cable(spine, t.superspine, LinkKind::Uplink, t.pod_uplink_bandwidth, latency);
  }
}

// A multi-node NVLink domain (an NVL72 rack) as one switch joined by every host's NVSwitch:
// the rack's NVSwitch trays connect every GPU's links to every other GPU of the rack at the
// full NVLink rate, so the trunk carries all of its host's GPUs at their rate (non-blocking)
// and adds no latency of its own (host NVSwitch and domain switch are one switch tier).
void TopologyBuilder::add_nvlink_domains() {
  Topology::Impl& t = *impl_;
  const InstanceSpec& in = inst();
  if (in.fabric != IntraFabric::NvSwitch || in.nvlink_domain_hosts < 2 || t.hosts < 2) return;
  t.domain_hosts = in.nvlink_domain_hosts;
  const int domains = (t.hosts + t.domain_hosts - 1) / t.domain_hosts;
  for (int d = 0; d < domains; ++d)
    t.domain_switch.push_back(
        add_device(DeviceKind::NvSwitch, -1, d, "nvldomain" + std::to_string(d)));
  const BytesPerSec trunk =
      in.nvlink_bandwidth_per_link * (static_cast<double>(in.nvlinks_per_gpu) * in.num_gpus);
  for (int h = 0; h < t.hosts; ++h) {
    t.domain_up.push_back(LinkId(static_cast<std::int32_t>(t.links.size())));
    t.domain_down.push_back(LinkId(static_cast<std::int32_t>(t.links.size() + 1)));
    add_cable(t.device_id(h, t.tmpl.nvswitch_local),
              t.domain_switch[static_cast<std::size_t>(h / t.domain_hosts)], LinkKind::NvLink,
              trunk, Seconds(0));
  }
}

// The smallest host shift that maps the cluster onto itself (Topology::host_period). One
// switch: every host alike. Otherwise whole racks, so that no leaf (and no uplink) is mapped
// onto itself, and whole pods under a super-spine (a shift by one rack would move a rack across
// a pod boundary); a single rail-optimised rack has no shift short of all its hosts.
int TopologyBuilder::host_period() const {
  const Topology::Impl& t = *impl_;
  const int network = network_period();
  if (network == 0 || t.domain_switch.empty()) return network;
  // Whole NVLink domains too: a shift must map domains onto domains (all of them full).
  if (t.hosts % t.domain_hosts != 0) return 0;
  const int period = std::lcm(network, t.domain_hosts);
  return t.hosts % period == 0 ? period : 0;
}

// host_period() of the network tiers alone.
int TopologyBuilder::network_period() const {
  const Topology::Impl& t = *impl_;
  if (t.spines.empty()) return 1;
  const int racks = static_cast<int>(t.tor_of_rack.size()) / t.leaves_per_rack;
  if (t.hosts % racks != 0) return 0;
  // Equal racks of contiguous hosts: shifting by one rack maps rack r onto rack r + 1 (mod).
  const int per_rack = t.hosts / racks;
  for (int h = 0; h < t.hosts; ++h)
    if (t.rack_of_host[static_cast<std::size_t>(h)] != h / per_rack) return 0;
  if (!t.superspine.valid()) return per_rack;
  return racks % t.racks_per_pod == 0 ? per_rack * t.racks_per_pod : 0;
}

void TopologyBuilder::finish_graph() {
  Topology::Impl& t = *impl_;
  const std::size_t n = t.devices.size();
  std::vector<std::int32_t> count(n + 1, 0);
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    const Link& l = t.links[i];
    ++count[l.src.index() + 1];
  }
  for (std::size_t v = 0; v < n; ++v) count[v + 1] += count[v];
  t.out_offsets = count;
  t.out_ids.resize(t.links.size());
  for (std::size_t i = 0; i < t.links.size(); ++i)
    t.out_ids[static_cast<std::size_t>(count[t.links[i].src.index()]++)] =
        LinkId(static_cast<std::int32_t>(i));
}

Expected<void> TopologyBuilder::finish_template() {
  Topology::Impl& t = *impl_;
  HostTemplate& tm = t.tmpl;
  for (int v = 0; v < tm.num_devices; ++v) {
    const Device& d = t.devices[v];
    if (d.kind == DeviceKind::Gpu) tm.gpu_local.push_back(v);
    if (d.kind == DeviceKind::Nic) tm.nic_local.push_back(v);
    if (d.kind == DeviceKind::Cpu) tm.cpu_local.push_back(v);
    if (d.kind == DeviceKind::PcieSwitch) tm.pcie_local.push_back(v);
    if (d.kind == DeviceKind::NvSwitch) tm.nvswitch_local = v;
  }
  const int nics = inst().num_nics;
  for (int n = 0; n < nics; ++n) {
    tm.nic_up_link.push_back(tm.num_links - 2 * nics + 2 * n);
    tm.nic_down_link.push_back(tm.num_links - 2 * nics + 2 * n + 1);
  }
  std::vector<Link> host_links(t.links.begin(), t.links.begin() + (tm.num_links - 2 * nics));
  TT_TRY_VOID(compute_host_routes(tm, t.devices, host_links, inst()));
  for (int g = 0; g < inst().num_gpus; ++g) t.nics_of_gpu.push_back(tm.device_nics[g]);
  t.rings = discover_intra_host_rings(inst());
  return {};
}

Expected<Topology> TopologyBuilder::build() {
  Topology::Impl& t = *impl_;
  if (t.spec.hosts < 1 || t.spec.hosts > kMaxHosts)
    return fail(Errc::InvalidArgument, "host count " + std::to_string(t.spec.hosts) +
                                           " out of range 1.." + std::to_string(kMaxHosts));
  t.spec.instance = complete_instance(std::move(t.spec.instance));
  TT_TRY_VOID(validate_instance(inst()).context("instance '" + inst().name + "'"));
  if (!t.spec.link_params_set) {
    t.spec.link_params = default_link_params(t.spec.placement);
    t.spec.link_params_set = true;
  }
  if (inst().transport == NetTransport::Tcp && !t.spec.fabric.per_flow_cap)
    t.spec.fabric.per_flow_cap = gbit_per_sec(
        t.spec.placement == Placement::Cluster ? kTcpFlowCapClusterGbps : kTcpFlowCapOtherGbps);
  t.hosts = t.spec.hosts;
  t.gpus_per_host = inst().num_gpus;
  for (int h = 0; h < t.hosts; ++h) {
    add_host(h);
    if (h == 0) {
      t.tmpl.num_devices = static_cast<int>(t.devices.size());
      t.tmpl.num_links = static_cast<int>(t.links.size());
      t.devices.reserve(static_cast<std::size_t>(t.tmpl.num_devices) * t.hosts + 2);
      t.links.reserve(static_cast<std::size_t>(t.tmpl.num_links) * t.hosts + 64);
      TT_TRY_VOID(finish_template());
    }
  }
  add_network();
  add_nvlink_domains();
  finish_graph();
  t.host_period = host_period();
  Topology topo;
  topo.impl_ = std::move(impl_);
  return topo;
}

Expected<Topology> build_topology(const ClusterSpec& spec) { return TopologyBuilder(spec).build(); }

}  // namespace topotune::topo
