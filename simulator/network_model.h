#pragma once
// NetworkModel: what the simulator needs to know about a network, and nothing more.
//
// The event loop is written against this interface rather than against topo::Topology directly,
// so that a hand-built network (a test with two links and one shared NIC, or a what-if that
// rewires a Topology) runs through exactly the same code. TopologyNetwork (topology_network.h)
// is the implementation every real caller uses.

#include <cstddef>
#include <optional>

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"
#include "core/strong_id.h"
#include "core/units.h"
#include "topology/topology.h"

namespace topotune::sim {

/// A directed graph of devices and capacitated links, with routes between devices.
/// Implementations are immutable while a simulation runs and must be deterministic.
class NetworkModel {
 public:
  virtual ~NetworkModel() = default;

  /// Link ids are 0..num_links()-1.
  virtual std::size_t num_links() const = 0;
  /// Device ids are 0..num_devices()-1.
  virtual std::size_t num_devices() const = 0;
  /// Capacity of a directed link, bytes/s per direction (> 0 for a usable link).
  virtual BytesPerSec link_bandwidth(LinkId link) const = 0;

  /// The device that executes a schedule endpoint (a rank's GPU, a host's CPU), or an error
  /// naming the endpoint when the network has no such party.
  virtual Expected<NodeId> device_of(const sched::Endpoint& endpoint, EndpointId id) const = 0;

  /// The links a transfer from `from` to `to` crosses and their summed latency. `channel` is
  /// the transfer's channel (a rail hint). An empty route means a local copy: no link to share.
  virtual topo::Route route(NodeId from, NodeId to, int channel) const = 0;

  /// A per-flow rate limit on this path (AWS TCP), if any.
  virtual std::optional<BytesPerSec> flow_cap(NodeId from, NodeId to) const = 0;

  /// Sum-reduction throughput of a device (bytes of incoming data reduced per second).
  virtual BytesPerSec reduce_bandwidth(NodeId device) const = 0;

  /// The shared reduction resource a device's reductions go through: the device itself,
  /// except in a symmetry-reduced run (symmetry.cc), where it is the device's orbit.
  virtual NodeId reduction_resource(NodeId device) const { return device; }

  /// A translation symmetry of the network: shifting every rank by `shift_ranks` (mod `ranks`)
  /// maps every device, link, route, cap and reduction throughput onto an equal one, and no
  /// link or host device onto itself. `shift_ranks` = 0: none known (the default).
  struct Translation {
    int shift_ranks = 0;
    int ranks = 0;
  };
  virtual Translation translation() const { return {}; }
  /// Under translation(): the representative of a link's orbit (every orbit has
  /// ranks / shift_ranks links), and of a device's.
  virtual LinkId link_orbit(LinkId link) const { return link; }
  virtual NodeId device_orbit(NodeId device) const { return device; }
};

}  // namespace topotune::sim
