#pragma once
// A hand-built NetworkModel for tests: devices, links and routes written out explicitly, so a
// test can state its network in a few lines and derive the expected times by hand.

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "simulator/network_model.h"

namespace topotune::sim::testing {

class FakeNetwork final : public NetworkModel {
 public:
  /// A device with a reduction throughput (bytes/s).
  int add_device(double reduce_bw = 1e18) {
    reduce_bw_.push_back(reduce_bw);
    return static_cast<int>(reduce_bw_.size()) - 1;
  }
  int add_link(double bandwidth, double latency) {
    links_.push_back({bandwidth, latency});
    return static_cast<int>(links_.size()) - 1;
  }
  /// The route from device `from` to `to` (any channel unless `channel` >= 0).
  void set_route(int from, int to, std::vector<int> links, int channel = -1) {
    routes_[{from, to, channel}] = std::move(links);
  }
  /// Rank r (in call order) runs on `device`.
  void add_rank(int device) { rank_device_.push_back(device); }
  void set_host_cpu(int host, int device) { host_cpu_[host] = device; }
  void set_flow_cap(double cap) { flow_cap_ = cap; }

  std::size_t num_links() const override { return links_.size(); }
  std::size_t num_devices() const override { return reduce_bw_.size(); }
  BytesPerSec link_bandwidth(LinkId l) const override {
    return BytesPerSec(links_[l.index()].bandwidth);
  }
  Expected<NodeId> device_of(const sched::Endpoint& e, EndpointId id) const override {
    if (e.kind == sched::EndpointKind::Rank) {
      if (id.index() >= rank_device_.size()) {
        return fail(Errc::InvalidSchedule, "no rank " + std::to_string(id.value));
      }
      return NodeId(rank_device_[id.index()]);
    }
    auto it = host_cpu_.find(e.host);
    if (it == host_cpu_.end())
      return fail(Errc::InvalidSchedule, "no host " + std::to_string(e.host));
    return NodeId(it->second);
  }
  topo::Route route(NodeId from, NodeId to, int channel) const override {
    auto it = routes_.find({from.value, to.value, channel});
    if (it == routes_.end()) it = routes_.find({from.value, to.value, -1});
    topo::Route r;
    if (it == routes_.end()) return r;
    double bottleneck = 1e300;
    for (int l : it->second) {
      r.links[static_cast<std::size_t>(r.size++)] = LinkId(l);
      r.latency += Seconds(links_[static_cast<std::size_t>(l)].latency);
      bottleneck = std::min(bottleneck, links_[static_cast<std::size_t>(l)].bandwidth);
    }
    r.bottleneck = BytesPerSec(r.size > 0 ? bottleneck : 0);
    return r;
  }
  std::optional<BytesPerSec> flow_cap(NodeId, NodeId) const override {
    if (flow_cap_) return BytesPerSec(*flow_cap_);
    return std::nullopt;
  }
  BytesPerSec reduce_bandwidth(NodeId d) const override {
    return BytesPerSec(reduce_bw_[d.index()]);
  }

 private:
  struct FakeLink {
    double bandwidth;
    double latency;
  };
  std::vector<double> reduce_bw_;
  std::vector<FakeLink> links_;
  std::map<std::tuple<int, int, int>, std::vector<int>> routes_;
  std::vector<int> rank_device_;
  std::map<int, int> host_cpu_;
  std::optional<double> flow_cap_;
};

/// `n` ranks on `n` devices around one switch: device i has an up link (i -> switch) and a down
/// link (switch -> i), both of `bw` bytes/s and `lat` seconds, so every route is up(a), down(b)
/// with latency 2*lat and bottleneck bw. Link ids: up(i) = 2i, down(i) = 2i + 1.
inline FakeNetwork star(int n, double bw, double lat, double reduce_bw = 1e18) {
  FakeNetwork net;
  for (int i = 0; i < n; ++i) net.add_rank(net.add_device(reduce_bw));
  net.add_device();  // the switch
  for (int i = 0; i < n; ++i) {
    net.add_link(bw, lat);
    net.add_link(bw, lat);
  }
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a != b) net.set_route(a, b, {2 * a, 2 * b + 1});
    }
  }
  return net;
}

}  // namespace topotune::sim::testing
