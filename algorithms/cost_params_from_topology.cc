// The adapter from the Topology graph to CostParams, in its own file (like
// layout_from_topology.cc) so that the cost model builds and tests without the topology library.
#include <algorithm>
#include <vector>

#include "algorithms/cost_params.h"
#include "topology/topology.h"

namespace topotune::algo {
namespace {

HopCost hop(const topo::Route& r) { return HopCost{r.latency, r.bottleneck}; }

}  // namespace

CostParams cost_params_from_topology(const topo::Topology& t) {
  CostParams p;
  const int G = t.gpus_per_host();
  const NodeId gpu0 = t.gpu_of(RankId(0));
  const bool multi_host = t.num_hosts() > 1;
  if (G > 1) p.intra = hop(t.route(gpu0, t.gpu_of(RankId(1))));
  if (multi_host) {
    p.inter = hop(t.route(gpu0, t.gpu_of(RankId(G))));
    p.net_to_cpu = hop(t.route(t.gpu_of(RankId(G)), t.cpu_of_host(0)));
  }
  if (G <= 1) p.intra = p.inter;
  if (!multi_host) p.inter = p.intra;
  p.gpu_to_cpu = hop(t.route(gpu0, t.cpu_of_host(0)));
  if (!multi_host) p.net_to_cpu = p.gpu_to_cpu;
  std::vector<int> gpus_on_nic;
  for (int l = 0; l < G; ++l) {
    const std::vector<int>& nics = t.nics_of_gpu(l);
    if (nics.empty()) continue;
    const auto nic = static_cast<std::size_t>(nics.front());
    if (gpus_on_nic.size() <= nic) gpus_on_nic.resize(nic + 1, 0);
    ++gpus_on_nic[nic];
  }
  for (int count : gpus_on_nic) p.nic_sharing = std::max(p.nic_sharing, static_cast<double>(count));
  p.gpu_reduce = t.reduce_bandwidth(gpu0);
  p.cpu_reduce = t.reduce_bandwidth(t.cpu_of_host(0));
  return p;
}

}  // namespace topotune::algo
