#pragma once
// Parameter-server allreduce with k shards (BytePS, OSDI'20; Herring/SMDDP, SC'20).
//
// The buffer is cut into k element-aligned shards, balanced by bytes (block(S, j, k)); shard j
// has one server. Every rank that is not the shard's server pushes its copy of the shard to
// the server (reduce into the server's buffer), all at once; once all pushes of a shard are
// in, the server sends (copies) the sum back to every such rank.
// Placements: `colocated` puts shard j's server on a GPU rank, j-th in host-round-robin order
// (host j % H, local GPU (j / H) % G), so servers spread across hosts; `cpu` adds one CPU
// endpoint per host (run by the host's first rank) and puts shard j on host j % H's CPU, whose
// buffer starts empty: every GPU, its own host's included, pushes every shard.
// Steps (DAG depth): 2 (push, pull). Transfers: 2·(n·k - colocated servers' own shards).
// Bytes sent per rank: colocated: S - (its shards) + (n-1)·(its shards); cpu: S.
//   A CPU server sends n·(its shards).
// Closed form: see cost_model.h: pushes share the server's ingress, pulls its egress.

#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/phase_context.h"

namespace topotune::algo {

class ParameterServer final : public Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string name() const override;
  Expected<void> supports(const sched::CollectiveSpec& spec,
                          const RankLayout& layout) const override;
  Expected<sched::Schedule> generate(const sched::CollectiveSpec& spec,
                                     const RankLayout& layout) const override;
  Expected<Seconds> closed_form(const sched::CollectiveSpec& spec, const RankLayout& layout,
                                const CostParams& params) const override;
  /// The effective shard count for `layout` (options().shards, or its default).
  int shards(const RankLayout& layout) const;
};

/// Closed form of CPU servers: `hosts` hosts whose `rails` GPUs each allreduce `region` bytes
/// in `shards` shards through the hosts' CPUs (flat ps: rails = GPUs per host, region = S).
Seconds ps_cpu_closed_form(int hosts, int rails, int shards, double region, const CostParams& p);

/// The rank serving shard j under the colocated placement (spread across hosts).
RankId colocated_server(const RankLayout& layout, int shard);

/// Parameter-server allreduce of `region` among `members`; servers[j] serves shard j (a
/// member or an extra endpoint), k = servers.size().
void add_ps_allreduce(const PhaseContext& ctx, const std::vector<EndpointId>& members,
                      sched::Slice region, const std::vector<EndpointId>& servers, int channel);

}  // namespace topotune::algo
