// Topology's translation symmetry: what lets the simulator run one representative of each set
// of equivalent flows (simulator/symmetry.h). Hosts are laid out from one template and racks
// are contiguous blocks, so shifting hosts by a whole number of racks maps the cluster onto
// itself: host links to host links (id host * per_host + local), ToRs to ToRs, and the spine
// onto itself.

#include "topology/topology_impl.h"

namespace topotune::topo {

int Topology::host_period() const {
  const Impl& t = *impl_;
  const int racks = static_cast<int>(t.tor_of_rack.size());
  if (racks <= 1) return 1;
  if (t.hosts % racks != 0) return 0;
  // Equal racks of contiguous hosts: shifting by one rack maps rack r onto rack r + 1 (mod).
  const int per_rack = t.hosts / racks;
  for (int h = 0; h < t.hosts; ++h)
    if (t.rack_of_host[static_cast<std::size_t>(h)] != h / per_rack) return 0;
  return per_rack;
}

LinkId Topology::link_orbit(LinkId id) const {
  const Impl& t = *impl_;
  TT_ASSERT(id.valid() && id.index() < t.links.size(), "bad LinkId %d", id.value);
  const int period = host_period();
  TT_ASSERT(period > 0, "link_orbit() on a topology without translation symmetry");
  const int per_host = t.tmpl.num_links;
  if (id.value < t.hosts * per_host) {
    const int host = id.value / per_host;
    return t.link_id(host % period, id.value % per_host);
  }
  // A rack uplink (added in rack order, up then down, after every host's links). With one
  // rack there are none; otherwise the period is one rack, so every rack maps onto rack 0.
  const int u = id.value - t.hosts * per_host;
  const auto rack = static_cast<std::size_t>(u / 2);
  TT_ASSERT(rack < t.uplink_up.size(), "link %d is neither a host link nor an uplink", id.value);
  return u % 2 == 0 ? t.uplink_up[0] : t.uplink_down[0];
}

NodeId Topology::device_orbit(NodeId id) const {
  const Impl& t = *impl_;
  TT_ASSERT(id.valid() && id.index() < t.devices.size(), "bad NodeId %d", id.value);
  const int period = host_period();
  TT_ASSERT(period > 0, "device_orbit() on a topology without translation symmetry");
  if (t.in_host(id)) {
    const int nd = t.tmpl.num_devices;
    return t.device_id((id.value / nd) % period, id.value % nd);
  }
  const Device& d = t.devices[id.index()];
  if (d.kind == DeviceKind::TorSwitch) return t.tor_of_rack[0];
  return id;  // the spine
}

}  // namespace topotune::topo
