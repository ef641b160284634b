#include "autotune/alpha_beta_timer.h"

#include <algorithm>
#include <cmath>

namespace topotune::tune {
namespace {

int ceil_log2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// Time terms without the per-collective cost a_0.
double ring(const ClusterShape& s, double n) {
  const int p = s.ranks();
  if (p == 1) return 0;
  const double share = 2.0 * (p - 1) / p * n;
  double bw = s.intra_bw.value;
  double lat = s.intra_latency.value;
  if (s.hosts > 1) {
    bw = std::min(bw, s.host_net_bw.value);
    lat = s.net_latency.value;
  }
  return 2.0 * (p - 1) * lat + share / bw;
}

double tree(const ClusterShape& s, double n) {
  const int g = s.gpus_per_host;
  if (s.ranks() == 1) return 0;
  const double lat =
      2.0 * (ceil_log2(s.hosts) * s.net_latency.value + (g - 1) * s.intra_latency.value);
  double t = g > 1 ? 2.0 * n / s.intra_bw.value : 0.0;
  if (s.hosts > 1) t = std::max(t, 2.0 * n / s.host_net_bw.value);
  return lat + t;
}

// One exchange of x bytes between partners `distance` ranks apart (ranks host-major).
double rhd_step(const ClusterShape& s, int distance, double x) {
  if (distance >= s.gpus_per_host) {
    return s.net_latency.value + std::max(x / s.intra_bw.value,
                                          x * s.gpus_per_host / s.host_net_bw.value);
  }
  return s.intra_latency.value + x / s.intra_bw.value;
}

double rhd(const ClusterShape& s, double n) {
  const int p = s.ranks();
  if (p == 1) return 0;
  const int pp = floor_pow2(p);
  double t = 0;
  double x = n;
  for (int d = pp / 2; d >= 1; d /= 2) {
    x /= 2;
    t += 2 * rhd_step(s, d, x);  // halving (reduce-scatter) and the mirrored doubling
  }
  if (pp != p) t += 2 * rhd_step(s, pp, n);  // fold the extra ranks in and out
  return t;
}

// Parameter server with `k` servers and `workers` pushers of `n` bytes each, `per_host` of
// them sharing one host's network bandwidth.
double ps(const ClusterShape& s, double n, int k, int workers, int per_host) {
  const double bn = s.host_net_bw.value;
  const double server_in = workers * n / k;
  return 2 * s.net_latency.value + std::max(per_host * n / bn, server_in / bn) +
         server_in / s.cpu_reduce_bw.value;
}

}  // namespace

Expected<Seconds> AlphaBetaTimer::allreduce(const AlgorithmChoice& a, Bytes bytes) const {
  const ClusterShape& s = shape_;
  const double n = bytes.as_double();
  if (a.channels > 0) return fail(Errc::Unsupported, "the alpha-beta timer has no channels");
  if (n <= 0 || s.ranks() == 1) return Seconds(0);
  const double a0 = s.op_latency.value;
  switch (a.kind) {
    case AlgoKind::NcclDefault: return Seconds(a0 + std::min(ring(s, n), tree(s, n)));
    case AlgoKind::Ring: return Seconds(a0 + ring(s, n));
    case AlgoKind::Tree: return Seconds(a0 + tree(s, n));
    case AlgoKind::HalvingDoubling: return Seconds(a0 + rhd(s, n));
    case AlgoKind::ParameterServer:
      if (s.hosts < 2 || a.servers < 1 || a.servers > s.hosts) {
        return fail(Errc::Unsupported, "ps(k=" + std::to_string(a.servers) +
                                           ") needs 1 <= k <= hosts and at least 2 hosts");
      }
      return Seconds(a0 + ps(s, n, a.servers, s.ranks(), s.gpus_per_host));
    case AlgoKind::Hierarchical: break;
  }
  const int g = s.gpus_per_host;
  const double intra = (g - 1) * s.intra_latency.value + (g - 1.0) / g * n / s.intra_bw.value;
  ClusterShape hosts = s;  // the inter-host phase: one "rank" per host moving n bytes
  hosts.gpus_per_host = 1;
  hosts.intra_bw = s.host_net_bw;
  double inter = 0;
  switch (a.inner) {
    case AlgoKind::Ring: inter = ring(hosts, n); break;
    case AlgoKind::Tree: inter = tree(hosts, n); break;
    case AlgoKind::HalvingDoubling: inter = rhd(hosts, n); break;
    case AlgoKind::ParameterServer:
      if (s.hosts < 2 || a.servers < 1 || a.servers > s.hosts) {
        return fail(Errc::Unsupported, "hierarchical(ps) needs 1 <= k <= hosts, >= 2 hosts");
      }
      inter = ps(s, n, a.servers, s.hosts, 1);
      break;
    default:
      return fail(Errc::Unsupported, std::string("hierarchical(") + algo_kind_name(a.inner) + ")");
  }
  if (s.hosts == 1) inter = 0;
  return Seconds(a0 + 2 * intra + inter);
}

}  // namespace topotune::tune
