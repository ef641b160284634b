// Topology's translation symmetry: what lets the simulator run one representative of each set
// of equivalent flows (simulator/symmetry.h). Hosts are laid out from one template and racks
// are contiguous blocks, so shifting hosts by a whole number of racks maps the cluster onto
// itself: host links to host links (id host * per_host + local), ToRs to ToRs, and the spine
// onto itself.

#include "topology/topology_impl.h"

namespace topotune::topo {

int Topology::host_period() const { return impl_->host_period; }

LinkId Topology::link_orbit(LinkId id) const {
  const Impl& t = *impl_;
  TT_ASSERT(id.valid() && id.index() < t.links.size(), "bad LinkId %d", id.value);
  const int period = t.host_period;
  TT_ASSERT(period > 0, "link_orbit() on a topology without translation symmetry");
  const int per_host = t.tmpl.num_links;
  if (id.value < t.hosts * per_host) {
    const int host = id.value / per_host;
    return t.link_id(host % period, id.value % per_host);
  }
  // A leaf's uplink (added in leaf order, up then down, after every host's links). With one
  // leaf there are none; otherwise the period is one rack, so every rack's leaf for a group
  // of rails maps onto rack 0's.
  const int u = id.value - t.hosts * per_host;
  const auto leaf = static_cast<std::size_t>(u / 2);
  TT_ASSERT(leaf < t.uplink_up.size(), "link %d is neither a host link nor an uplink", id.value);
  const auto group = leaf % static_cast<std::size_t>(t.leaves_per_rack);
  return u % 2 == 0 ? t.uplink_up[group] : t.uplink_down[group];
}

NodeId Topology::device_orbit(NodeId id) const {
  const Impl& t = *impl_;
  TT_ASSERT(id.valid() && id.index() < t.devices.size(), "bad NodeId %d", id.value);
  const int period = t.host_period;
  TT_ASSERT(period > 0, "device_orbit() on a topology without translation symmetry");
  if (t.in_host(id)) {
    const int nd = t.tmpl.num_devices;
    return t.device_id((id.value / nd) % period, id.value % nd);
  }
  const Device& d = t.devices[id.index()];
  if (d.kind == DeviceKind::TorSwitch)
    return t.tor_of_rack[static_cast<std::size_t>(d.index % t.leaves_per_rack)];
  return id;  // the spine
}

}  // namespace topotune::topo
