// Topology's queries. Routes are composed from the host template (see topology_impl.h).

#include <algorithm>
#include <limits>

#include "topology/model_defaults.h"
#include "topology/topology_impl.h"

namespace topotune::topo {

Topology::Topology() : impl_(std::make_unique<Impl>()) {}
Topology::~Topology() = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;
Topology::Topology(const Topology& o) : impl_(std::make_unique<Impl>(*o.impl_)) {}
Topology& Topology::operator=(const Topology& o) {
  if (this != &o) impl_ = std::make_unique<Impl>(*o.impl_);
  return *this;
}

const ClusterSpec& Topology::spec() const { return impl_->spec; }
int Topology::num_hosts() const { return impl_->hosts; }
int Topology::gpus_per_host() const { return impl_->gpus_per_host; }
int Topology::num_ranks() const { return impl_->hosts * impl_->gpus_per_host; }
int Topology::num_racks() const {
  return static_cast<int>(impl_->tor_of_rack.size()) / impl_->leaves_per_rack;
}
int Topology::leaves_per_rack() const { return impl_->leaves_per_rack; }
int Topology::num_pods() const { return impl_->superspine.valid() ? impl_->num_pods() : 1; }
int Topology::racks_per_pod() const {
  return impl_->superspine.valid() ? impl_->racks_per_pod : num_racks();
}
int Topology::nvlink_domain_hosts() const { return impl_->domain_hosts; }
int Topology::num_nvlink_domains() const { return static_cast<int>(impl_->domain_switch.size()); }
int Topology::rack_of_host(int host) const {
  TT_ASSERT(host >= 0 && host < impl_->hosts, "host %d out of range", host);
  return impl_->rack_of_host[host];
}

std::size_t Topology::num_devices() const { return impl_->devices.size(); }
const Device& Topology::device(NodeId id) const {
  TT_ASSERT(id.valid() && id.index() < impl_->devices.size(), "bad NodeId %d", id.value);
  return impl_->devices[id.index()];
}
std::size_t Topology::num_links() const { return impl_->links.size(); }
const Link& Topology::link(LinkId id) const {
  TT_ASSERT(id.valid() && id.index() < impl_->links.size(), "bad LinkId %d", id.value);
  return impl_->links[id.index()];
}
std::span<const LinkId> Topology::out_links(NodeId id) const {
  TT_ASSERT(id.valid() && id.index() < impl_->devices.size(), "bad NodeId %d", id.value);
  const auto b = static_cast<std::size_t>(impl_->out_offsets[id.index()]);
  const auto e = static_cast<std::size_t>(impl_->out_offsets[id.index() + 1]);
  return {impl_->out_ids.data() + b, e - b};
}

NodeId Topology::gpu_of(RankId r) const {
  TT_ASSERT(r.valid() && r.value < num_ranks(), "rank %d out of range", r.value);
  return impl_->device_id(host_of(r), impl_->tmpl.gpu_local[local_index(r)]);
}
int Topology::host_of(RankId r) const { return r.value / impl_->gpus_per_host; }
int Topology::local_index(RankId r) const { return r.value % impl_->gpus_per_host; }
NodeId Topology::cpu_of_host(int host) const {
  TT_ASSERT(host >= 0 && host < impl_->hosts, "host %d out of range", host);
  return impl_->device_id(host, impl_->tmpl.cpu_local[0]);
}

namespace {

// Appends links to a route, keeping latency and bottleneck current.
//
// A host's link is read from host 0's copy (same local index): every host is laid out from the
// same template with the same parameters, and host 0's few dozen links stay in cache, where the
// host's own would be a cache miss per hop at a thousand hosts (the simulator routes every
// transfer).
struct RouteWriter {
  const std::vector<Link>& links;
  const HostTemplate& tmpl;
  Route& r;
  void add(LinkId id) { add_as(id, links[id.index()]); }
  void add_as(LinkId id, const Link& l) {
    TT_ASSERT(r.size < Route::kMaxHops, "route longer than %d hops", Route::kMaxHops);
    r.links[static_cast<std::size_t>(r.size++)] = id;
    r.latency += l.latency;
    r.bottleneck = r.size == 1 ? l.bandwidth : std::min(r.bottleneck, l.bandwidth);
  }
  void add_host_link(int host, int local) {
    add_as(LinkId(host * tmpl.num_links + local), links[static_cast<std::size_t>(local)]);
  }
  void add_local(int host, LocalRoute lr) {
    for (int i = 0; i < lr.size; ++i)
      add_host_link(host, tmpl.hops[static_cast<std::size_t>(lr.offset + i)]);
  }
};

// GPU to GPU in one multi-node NVLink domain: through both hosts' NVSwitch ports and the
// domain switch, never a NIC (NCCL's P2P over MNNVL).
void add_domain_route(RouteWriter& w, int hs, int ls, int hd, int ld, LinkId up, LinkId down) {
  const auto nd = static_cast<std::size_t>(w.tmpl.num_devices);
  const auto sw = static_cast<std::size_t>(w.tmpl.nvswitch_local);
  w.add_local(hs, w.tmpl.routes[static_cast<std::size_t>(ls) * nd + sw]);
  w.add(up);
  w.add(down);
  w.add_local(hd, w.tmpl.routes[sw * nd + static_cast<std::size_t>(ld)]);
}

int nic_for(const HostTemplate& tmpl, int local, int channel) {
  const std::vector<int>& nics = tmpl.device_nics[local];
  const int c = channel < 0 ? -channel : channel;
  return nics[static_cast<std::size_t>(c) % nics.size()];
}

}  // namespace

Route Topology::route(NodeId from, NodeId to, int channel) const {
  const Impl& t = *impl_;
  TT_ASSERT(from.valid() && from.index() < t.devices.size(), "bad NodeId %d", from.value);
  TT_ASSERT(to.valid() && to.index() < t.devices.size(), "bad NodeId %d", to.value);
  Route r;
  if (from == to) return r;
  RouteWriter w{t.links, t.tmpl, r};
  const int nd = t.tmpl.num_devices;
  const bool src_host = t.in_host(from), dst_host = t.in_host(to);
  const int hs = src_host ? from.value / nd : -1, ls = src_host ? from.value % nd : -1;
  const int hd = dst_host ? to.value / nd : -1, ld = dst_host ? to.value % nd : -1;
  if (src_host && hs == hd) {
    w.add_local(hs, t.tmpl.routes[static_cast<std::size_t>(ls) * nd + ld]);
    return r;
  }
  if (t.nvlink_peers(from, to)) {
    add_domain_route(w, hs, ls, hd, ld, t.domain_up[static_cast<std::size_t>(hs)],
                     t.domain_down[static_cast<std::size_t>(hd)]);
    return r;
  }
  // Network leg: from the source's leaf (or the switch itself) to the destination's.
  NodeId at = from;
  const std::size_t nics = t.tmpl.nic_local.size();
  if (src_host) {
    const int nic = nic_for(t.tmpl, ls, channel);
    w.add_local(hs, t.tmpl.egress[static_cast<std::size_t>(ls) * nics + nic]);
    w.add_host_link(hs, t.tmpl.nic_up_link[nic]);
    at = t.leaf_of(hs, nic);
  }
  const int dst_nic = dst_host ? nic_for(t.tmpl, ld, channel) : 0;
  const NodeId goal = dst_host ? t.leaf_of(hd, dst_nic) : to;
  // From one switch to the other: up from a leaf to its spine, across the super-spine when the
  // two are in different pods (or one is the super-spine), down to the goal leaf.
  if (at != goal) {
    const Device& a = t.devices[at.index()];
    const Device& g = t.devices[goal.index()];
    if (a.kind == DeviceKind::TorSwitch) w.add(t.uplink_up[static_cast<std::size_t>(a.index)]);
    const int pa = t.pod_of_switch(a), pg = t.pod_of_switch(g);
    if (t.superspine.valid() && (pa != pg || pa < 0)) {
      if (pa >= 0) w.add(t.pod_up[static_cast<std::size_t>(pa)]);
      if (pg >= 0) w.add(t.pod_down[static_cast<std::size_t>(pg)]);
    }
    if (g.kind == DeviceKind::TorSwitch) w.add(t.uplink_down[static_cast<std::size_t>(g.index)]);
  }
  if (dst_host) {
    w.add_host_link(hd, t.tmpl.nic_down_link[dst_nic]);
    w.add_local(hd, t.tmpl.ingress[static_cast<std::size_t>(dst_nic) * nd + ld]);
  }
  return r;
}

std::optional<BytesPerSec> Topology::flow_cap(NodeId from, NodeId to) const {
  const Impl& t = *impl_;
  const int nd = t.tmpl.num_devices;
  const bool same_host = t.in_host(from) && t.in_host(to) && from.value / nd == to.value / nd;
  // NVLink between the hosts of one domain: no NIC, so no per-flow network cap.
  if (same_host || from == to || t.nvlink_peers(from, to)) return std::nullopt;
  return t.spec.fabric.per_flow_cap;
}

const std::vector<int>& Topology::intra_host_ring(int channel) const {
  const auto& rings = impl_->rings;
  TT_ASSERT(!rings.empty(), "topology has no rings (empty topology?)");
  const std::size_t c = static_cast<std::size_t>(channel < 0 ? -channel : channel);
  return rings[c % rings.size()];
}

int Topology::num_intra_host_rings() const { return static_cast<int>(impl_->rings.size()); }

std::vector<RankId> Topology::ring_order(int channel) const {
  std::vector<RankId> order;
  order.reserve(static_cast<std::size_t>(num_ranks()));
  const std::vector<int>& ring = intra_host_ring(channel);
  for (int h = 0; h < impl_->hosts; ++h)
    for (int g : ring) order.emplace_back(h * impl_->gpus_per_host + g);
  return order;
}

const std::vector<int>& Topology::nics_of_gpu(int local_gpu) const {
  TT_ASSERT(local_gpu >= 0 && local_gpu < impl_->gpus_per_host, "GPU %d out of range", local_gpu);
  return impl_->nics_of_gpu[local_gpu];
}

BytesPerSec Topology::reduce_bandwidth(NodeId id) const {
  const InstanceSpec& in = impl_->spec.instance;
  switch (device(id).kind) {
    case DeviceKind::Gpu:
      if (in.gpu.reduce_bandwidth) return *in.gpu.reduce_bandwidth;
      if (in.gpu.memory_bandwidth)
        return *in.gpu.memory_bandwidth * kGpuReduceShareOfMemoryBandwidth;
      return gbyte_per_sec(kDefaultGpuReduceGBps);
    case DeviceKind::Cpu:
      return in.cpu_reduce_bandwidth.value_or(gbyte_per_sec(kDefaultCpuReduceGBps));
    case DeviceKind::NvSwitch:
      // NVLS/SHARP reduces in the switch at the GPU's NVLink rate; older switches cannot.
      return in.nvls ? in.nvlink_bandwidth_per_link * in.nvlinks_per_gpu : BytesPerSec(0);
    default:
      return BytesPerSec(0);
  }
}

BytesPerSec Topology::host_nic_bandwidth() const {
  const InstanceSpec& in = impl_->spec.instance;
  return in.nic_bandwidth * static_cast<double>(in.num_nics);
}

BytesPerSec Topology::bisection_bandwidth() const {
  const Impl& t = *impl_;
  if (t.hosts < 2) return BytesPerSec(0);
  // Halves of the hosts; the hosts' NICs bound it, and with racks the spine uplinks of half
  // of the racks do too (racks are balanced, so any half of them carries the same uplinks),
  // and with pods the super-spine uplinks of half of the pods.
  const BytesPerSec nic_bound = host_nic_bandwidth() * static_cast<double>(t.hosts / 2);
  if (t.spines.empty()) return nic_bound;
  // Rail-optimised racks: a half of the racks sends through all of their leaves' uplinks.
  const BytesPerSec spine_bound =
      t.uplink_bandwidth * static_cast<double>(num_racks() / 2 * t.leaves_per_rack);
  if (num_racks() < 2) return nic_bound;
  if (!t.superspine.valid()) return std::min(nic_bound, spine_bound);
  const BytesPerSec pod_bound = t.pod_uplink_bandwidth * static_cast<double>(t.num_pods() / 2);
  return std::min({nic_bound, spine_bound, pod_bound});
}

}  // namespace topotune::topo
