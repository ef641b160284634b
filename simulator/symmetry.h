#pragma once
// Symmetry reduction: simulate one flow for each set of equivalent flows.
//
// On a cluster of identical hosts, a collective's schedule is often invariant under a shift of
// the ranks by whole hosts (a ring, a per-rail halving-doubling between hosts, the intra-host
// phases of a hierarchical allreduce): transfer t from rank r has a twin from rank r + shift
// with the same size, channel and kind, to the shifted receiver, whose dependencies are the
// twins of t's. When the network maps onto itself under the same shift
// (NetworkModel::translation), the twins are indistinguishable to the simulation: by
// induction over time they become ready together, cross shifted copies of the same links,
// and get the same max-min share, because the max-min allocation is unique and the shift maps
// the allocation problem onto itself. So the simulator runs one representative per orbit of
// twins (the transfers of the first `shift` ranks), with each representative's links replaced
// by their orbit's representative: the representative link then carries exactly the flows
// that each link of its orbit carries (every orbit of m transfers meets each orbit of m links
// once per crossing), and its share is theirs. Results are copied back to every twin and
// every link of an orbit. The equality is proved by tests/simulator/symmetry_test.cc, which
// runs both on every case small enough (1e-9 relative).
//
// The check is O(transfers + dependencies) with arrays only: the k-th transfer sent by rank r
// is matched with the k-th sent by r mod shift. A schedule that breaks any condition (a CPU
// endpoint, a twin with another size, dependencies in other orbits) is simply not reduced.

#include <cstdint>
#include <optional>
#include <vector>

#include "algorithms/schedule/reduced_schedule.h"
#include "algorithms/schedule/schedule.h"
#include "core/expected.h"
#include "simulator/network_model.h"
#include "simulator/sim_result.h"

namespace topotune::sim {

/// A schedule reduced by a translation: one transfer per orbit, and the way back.
struct Quotient {
  /// The representatives, in schedule order, dependencies remapped; orbit_size transfers per
  /// orbit (= links per link orbit).
  sched::ReducedSchedule reduced;
  /// Per transfer of the full schedule: the index of its orbit's representative.
  std::vector<std::uint32_t> orbit_of;
};

/// The schedule reduced by the network's translation, or nullopt when the network has none or
/// the schedule is not invariant under it.
std::optional<Quotient> quotient_by_translation(const sched::Schedule& schedule,
                                                const NetworkModel& network);

/// The network as the reduced run sees it: routes cross orbit representatives of links, and
/// a device's reductions share its orbit's resource. Everything else is `base`'s.
class QuotientNetwork final : public NetworkModel {
 public:
  explicit QuotientNetwork(const NetworkModel& base) : base_(base) {}
  std::size_t num_links() const override { return base_.num_links(); }
  std::size_t num_devices() const override { return base_.num_devices(); }
  BytesPerSec link_bandwidth(LinkId link) const override { return base_.link_bandwidth(link); }
  Expected<NodeId> device_of(const sched::Endpoint& endpoint, EndpointId id) const override {
    return base_.device_of(endpoint, id);
  }
  topo::Route route(NodeId from, NodeId to, int channel) const override;
  std::optional<BytesPerSec> flow_cap(NodeId from, NodeId to) const override {
    return base_.flow_cap(from, to);
  }
  BytesPerSec reduce_bandwidth(NodeId device) const override {
    return base_.reduce_bandwidth(device);
  }
  NodeId reduction_resource(NodeId device) const override { return base_.device_orbit(device); }

 private:
  const NetworkModel& base_;
};

/// Whether `reduced` can run on `network`: the network's translation is the schedule's shift
/// over the same ranks, only ranks below the shift send, and there are no extra endpoints.
/// Errors (Errc::InvalidArgument) say which condition fails.
Expected<void> check_reduced(const sched::ReducedSchedule& reduced, const NetworkModel& network);

/// A reduced run's result as the full network sees it: every link gets its orbit
/// representative's statistics; transfers stay the representatives' timings.
SimResult expand_links(SimResult reduced, int orbit_size, const NetworkModel& network);

/// Every transfer of the full schedule gets its representative's timings (`reduced` from
/// expand_links, transfers recorded).
void expand_transfers(SimResult& result, const Quotient& q);

}  // namespace topotune::sim
