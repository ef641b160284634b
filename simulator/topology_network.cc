#include "simulator/topology_network.h"

#include <memory>
#include <string>

#include "simulator/simulator.h"

namespace topotune::sim {

std::size_t TopologyNetwork::num_links() const { return topo_->num_links(); }

std::size_t TopologyNetwork::num_devices() const { return topo_->num_devices(); }

BytesPerSec TopologyNetwork::link_bandwidth(LinkId link) const {
  return topo_->link(link).bandwidth;
}

Expected<NodeId> TopologyNetwork::device_of(const sched::Endpoint& endpoint, EndpointId id) const {
  if (endpoint.kind == sched::EndpointKind::Rank) {
    const int rank = id.value;
    if (rank < 0 || rank >= topo_->num_ranks()) {
      return fail(Errc::InvalidSchedule, "endpoint " + std::to_string(id.value) + " is rank " +
                                             std::to_string(rank) + ", but the topology has only " +
                                             std::to_string(topo_->num_ranks()) + " ranks (GPUs)");
    }
    return topo_->gpu_of(RankId(rank));
  }
  if (endpoint.host < 0 || endpoint.host >= topo_->num_hosts()) {
    return fail(Errc::InvalidSchedule, "endpoint " + std::to_string(id.value) +
                                           " is the CPU of host " + std::to_string(endpoint.host) +
                                           ", but the topology has only " +
                                           std::to_string(topo_->num_hosts()) + " hosts");
  }
  return topo_->cpu_of_host(endpoint.host);
}

topo::Route TopologyNetwork::route(NodeId from, NodeId to, int channel) const {
  return topo_->route(from, to, channel);
}

std::optional<BytesPerSec> TopologyNetwork::flow_cap(NodeId from, NodeId to) const {
  return topo_->flow_cap(from, to);
}

Simulator::Simulator(const topo::Topology& topo, SimOptions options)
    : owned_(std::make_unique<TopologyNetwork>(topo)), network_(owned_.get()), options_(options) {}

NetworkModel::Translation TopologyNetwork::translation() const {
  const int period = topo_->host_period();
  if (period <= 0 || period >= topo_->num_hosts()) return {};
  return {period * topo_->gpus_per_host(), topo_->num_ranks()};
}

BytesPerSec TopologyNetwork::reduce_bandwidth(NodeId device) const {
  return topo_->reduce_bandwidth(device);
}

}  // namespace topotune::sim
