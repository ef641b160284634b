#include "algorithms/cost_model.h"

#include <algorithm>

namespace topotune::algo {

Seconds critical_path_time(const sched::Schedule& s, const TransferCost& cost) {
  std::vector<double> finish(s.size(), 0.0);
  double end = 0.0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const TransferId id(static_cast<std::int32_t>(i));
    double start = 0.0;
    for (TransferId d : s.deps(id)) start = std::max(start, finish[d.index()]);
    finish[i] = start + cost(id, s.transfers()[i]).value;
    end = std::max(end, finish[i]);
  }
  return Seconds(end);
}

const HopCost& hop_of(const sched::Schedule& s, const RankLayout& layout, const CostParams& p,
                      const sched::Transfer& t) {
  const auto host = [&](EndpointId e) {
    return e.value < s.num_ranks() ? layout.host_of(RankId(e.value)) : s.endpoint(e).host;
  };
  const bool cpu = t.src.value >= s.num_ranks() || t.dst.value >= s.num_ranks();
  const bool same_host = host(t.src) == host(t.dst);
  if (cpu) return same_host ? p.gpu_to_cpu : p.net_to_cpu;
  return same_host ? p.intra : p.inter;
}

TransferCost level_transfer_cost(const sched::Schedule& s, const RankLayout& layout,
                                 const CostParams& p, double share_beta, double share_gamma) {
  return [&s, &layout, p, share_beta, share_gamma](TransferId, const sched::Transfer& t) {
    const HopCost& hop = hop_of(s, layout, p, t);
    const double bytes = t.slice.size.as_double();
    double secs = hop.latency.value + share_beta * bytes / hop.bandwidth.value;
    if (t.reduce) {
      const double gamma = t.dst.value >= s.num_ranks() ? p.gamma_cpu() : p.gamma_gpu();
      secs += share_gamma * bytes * gamma;
    }
    return Seconds(secs);
  };
}

HopCost slowest_hop(const std::vector<HopCost>& hops, double bytes) {
  HopCost worst = hops.empty() ? HopCost{} : hops.front();
  for (const HopCost& h : hops) {
    if (h.time(bytes) > worst.time(bytes)) worst = h;
  }
  return worst;
}

std::vector<HopCost> ring_hops(const std::vector<RankId>& ring, const RankLayout& layout,
                               const CostParams& p) {
  std::vector<HopCost> hops;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const RankId a = ring[i], b = ring[(i + 1) % ring.size()];
    hops.push_back(layout.host_of(a) == layout.host_of(b) ? p.intra : p.inter);
  }
  return hops;
}

Seconds ring_time(int n, double bytes, int chunks, const HopCost& hop, double gamma, bool rs,
                  bool ag) {
  if (n <= 1) return Seconds(0);
  const double x = bytes / (static_cast<double>(n) * chunks);
  const double steps = static_cast<double>(n - 1) * chunks;
  double t = 0.0;
  if (rs) t += steps * (hop.time(x).value + x * gamma);
  if (ag) t += steps * hop.time(x).value;
  return Seconds(t);
}

Seconds chain_time(int n, double bytes, int chunks, const HopCost& hop) {
  if (n <= 1) return Seconds(0);
  return hop.time(bytes / chunks) * static_cast<double>(n - 1 + chunks - 1);
}

Seconds chain_time(const std::vector<HopCost>& hops, double bytes, int chunks) {
  const double chunk = bytes / chunks;
  double sum = 0.0, slowest = 0.0;
  for (const HopCost& h : hops) {
    sum += h.time(chunk).value;
    slowest = std::max(slowest, h.time(chunk).value);
  }
  return Seconds(sum + (chunks - 1) * slowest);
}

Seconds ps_time(int remote, int local, double shard, const HopCost& net, const HopCost& near,
                double gamma) {
  if (remote + local == 0) return Seconds(0);
  // Each level's pushes share that level's path into the server and arrive together.
  const double t_net = remote > 0 ? net.time(remote * shard).value : 0.0;
  const double t_near = local > 0 ? near.time(local * shard).value : 0.0;
  // The server reduces in arrival order: the earlier group first, the later one after it.
  const bool near_first = t_near <= t_net;
  const double first_t = near_first ? t_near : t_net, second_t = near_first ? t_net : t_near;
  const int first_n = near_first ? local : remote, second_n = near_first ? remote : local;
  const double first_done = first_t + first_n * shard * gamma;
  const double reduced = std::max(first_done, second_t) + second_n * shard * gamma;
  return Seconds(reduced + std::max(t_net, t_near));  // the pulls mirror the pushes
}

}  // namespace topotune::algo
