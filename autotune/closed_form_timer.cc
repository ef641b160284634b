#include "autotune/closed_form_timer.h"

#include <algorithm>

#include "autotune/schedule_algorithm.h"
#include "topology/topology.h"

namespace topotune::tune {
ClosedFormTimer::ClosedFormTimer(algo::RankLayout layout, algo::CostParams params,
                                 Seconds op_latency)
    : layout_(std::move(layout)), params_(params), op_latency_(op_latency) {}

Expected<ClosedFormTimer> ClosedFormTimer::create(const topo::ClusterSpec& spec,
                                                  const ShapeDefaults& d) {
  topo::ClusterSpec small = spec;
  small.hosts = std::min(spec.hosts, 2);
  TT_TRY(const topo::Topology t, topo::build_topology(small));
  algo::CostParams p = algo::cost_params_from_topology(t);
  for (algo::HopCost* h : {&p.intra, &p.gpu_to_cpu}) h->latency += d.intra_step_overhead;
  for (algo::HopCost* h : {&p.inter, &p.net_to_cpu}) h->latency += d.net_step_overhead;
  // Every host is the same: the full layout repeats one host's ring order (hosts contiguous,
  // as Topology::ring_order does), without building a graph of spec.hosts hosts.
  algo::RankLayout layout;
  layout.hosts = spec.hosts;
  layout.gpus_per_host = t.gpus_per_host();
  layout.intra = {t.intra_host_ring(0)};
  std::vector<RankId> ring;
  for (int h = 0; h < spec.hosts; ++h) {
    for (int g : layout.intra[0]) ring.push_back(layout.rank_of(h, g));
  }
  layout.rings = {std::move(ring)};
  TT_TRY_VOID(layout.check());
  return ClosedFormTimer(std::move(layout), p, d.op_latency);
}

Expected<const algo::Algorithm*> ClosedFormTimer::algorithm(const AlgorithmChoice& a) const {
  if (auto it = algorithms_.find(a); it != algorithms_.end()) return it->second.get();
  TT_TRY(std::unique_ptr<algo::Algorithm> made, make_schedule_algorithm(a));
  std::shared_ptr<algo::Algorithm> shared(std::move(made));
  algorithms_.emplace(a, shared);
  return shared.get();
}

Expected<Seconds> ClosedFormTimer::allreduce(const AlgorithmChoice& a, Bytes bytes) const {
  // Without an NCCL predictor, NCCL's algorithms stand for topotune's ring and double binary
  // tree, and NCCL's own choice for the faster of the two.
  if (a.kind == AlgoKind::NcclRing || a.kind == AlgoKind::NcclTree) {
    AlgorithmChoice own = a;
    own.kind = a.kind == AlgoKind::NcclRing ? AlgoKind::Ring : AlgoKind::DbTree;
    return allreduce(own, bytes);
  }
  if (a.kind == AlgoKind::NcclDefault) {
    AlgorithmChoice ring = a, tree = a;
    ring.kind = AlgoKind::Ring;
    tree.kind = AlgoKind::DbTree;
    TT_TRY(const Seconds r, allreduce(ring, bytes));
    const Expected<Seconds> t = allreduce(tree, bytes);
    return t ? std::min(r, *t) : r;
  }
  if (a.kind == AlgoKind::ParameterServer && layout_.hosts < 2) {
    return fail(Errc::Unsupported, "a CPU parameter server across hosts needs >= 2 hosts");
  }
  if (bytes.value <= 0 || layout_.ranks() == 1) return Seconds(0);
  TT_TRY(const algo::Algorithm* alg, algorithm(a));
  sched::CollectiveSpec spec;
  spec.ranks = layout_.ranks();
  // The spec wants whole fp32 elements; gradient buckets are (multiples of 2-byte elements
  // at worst), so rounding down loses at most 2 bytes.
  spec.dtype = sched::DataType::F32;
  spec.bytes = Bytes(bytes.value - bytes.value % 4);
  TT_TRY(const Seconds t, alg->closed_form(spec, layout_, params_));
  return t + op_latency_;
}

}  // namespace topotune::tune
