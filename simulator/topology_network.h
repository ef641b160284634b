#pragma once
// TopologyNetwork: a topo::Topology seen as a NetworkModel (rank r -> gpu_of(r), a HostCpu
// endpoint -> cpu_of_host(host), routes and caps straight from the topology).

#include "simulator/network_model.h"
#include "topology/topology.h"

namespace topotune::sim {

/// A view of a Topology; the topology must outlive it.
class TopologyNetwork final : public NetworkModel {
 public:
  explicit TopologyNetwork(const topo::Topology& topo) : topo_(&topo) {}

  std::size_t num_links() const override;
  std::size_t num_devices() const override;
  BytesPerSec link_bandwidth(LinkId link) const override;
  /// Errors (Errc::InvalidSchedule): a rank >= topo.num_ranks(), a host out of range.
  Expected<NodeId> device_of(const sched::Endpoint& endpoint, EndpointId id) const override;
  topo::Route route(NodeId from, NodeId to, int channel) const override;
  std::optional<BytesPerSec> flow_cap(NodeId from, NodeId to) const override;
  BytesPerSec reduce_bandwidth(NodeId device) const override;
  /// Hosts shifted by Topology::host_period() (none when the period is 0 or all hosts).
  Translation translation() const override;
  LinkId link_orbit(LinkId link) const override { return topo_->link_orbit(link); }
  NodeId device_orbit(NodeId device) const override { return topo_->device_orbit(device); }

 private:
  const topo::Topology* topo_;
};

}  // namespace topotune::sim
