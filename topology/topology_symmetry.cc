// Topology's translation symmetry: what lets the simulator run one representative of each set
// of equivalent flows (simulator/symmetry.h). Hosts are laid out from one template, racks are
// contiguous blocks and pods contiguous blocks of racks, so shifting hosts by a whole number of
// periods (a rack, or a pod under a super-spine) maps the cluster onto itself: host links to
// host links (id host * per_host + local), leaves to leaves, spines to spines, the
// super-spine (or the one spine) onto itself, and NVLink-domain switches (whole domains per
// period) onto their counterparts.

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
  // A leaf's uplink (added in leaf order, up then down, after every host's links), then a
  // pod's (after every leaf's). With one leaf there are none; otherwise the period is whole
  // racks (pods), so every leaf (pod) maps onto its counterpart in the first period.
  const auto [leaves, pods] = t.leaves_and_pods_per_period();
  const int u = id.value - t.hosts * per_host;
  const auto leaf = static_cast<std::size_t>(u / 2);
  if (leaf < t.uplink_up.size()) {
    const std::size_t rep = leaf % leaves;
    return u % 2 == 0 ? t.uplink_up[rep] : t.uplink_down[rep];
  }
  const int v = u - 2 * static_cast<int>(t.uplink_up.size());
  const auto pod = static_cast<std::size_t>(v / 2);
  if (pod >= t.pod_up.size()) {
    // A host's NVLink-domain trunk (after the pod uplinks): the period is whole domains.
    const int w = v - 2 * static_cast<int>(t.pod_up.size());
    const auto host = static_cast<std::size_t>(w / 2);
    TT_ASSERT(host < t.domain_up.size(), "link %d is not a host, leaf, pod or domain link",
              id.value);
    const std::size_t rep = host % static_cast<std::size_t>(period);
    return w % 2 == 0 ? t.domain_up[rep] : t.domain_down[rep];
  }
  const std::size_t rep = pod % pods;
  return v % 2 == 0 ? t.pod_up[rep] : t.pod_down[rep];
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
  const auto [leaves, pods] = t.leaves_and_pods_per_period();
  if (d.kind == DeviceKind::TorSwitch)
    return t.tor_of_rack[static_cast<std::size_t>(d.index) % leaves];
  if (d.kind == DeviceKind::NvSwitch)  // a domain switch; the period is whole domains
    return t.domain_switch[static_cast<std::size_t>(d.index % (period / t.domain_hosts))];
  if (d.kind == DeviceKind::Spine && t.superspine.valid())
    return t.spines[static_cast<std::size_t>(d.index) % pods];
  return id;  // the one spine, or the super-spine
}

}  // namespace topotune::topo
