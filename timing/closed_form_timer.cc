#include "timing/closed_form_timer.h"

#include <algorithm>

#include "algorithms/nccl/nccl_tuning_tables.h"
#include "timing/schedule_algorithm.h"
#include "topology/topology.h"

namespace topotune::tune {

ShapeDefaults software_costs(const algo::NcclModelParams& p, const algo::NcclSystem& s) {
  // NCCL's own Ring/Simple constants of the newest modeled release, scaled as the NCCL
  // predictor scales them (nccl_physical_time.cc), so both models pay the same per-step costs.
  using algo::NcclAlgo;
  using algo::NcclHw;
  using algo::NcclProto;
  constexpr int kRel = algo::kLatestModeledRelease;
  double net_us = p.net_latency_scale *
                  algo::nccl_hw_latency_us(kRel, NcclHw::Net, NcclAlgo::Ring, NcclProto::Simple);
  if (!s.gpudirect_rdma) net_us += p.host_staging_latency_us;
  ShapeDefaults d;
  d.intra_step_overhead = microseconds(
      p.nvlink_latency_scale *
      algo::nccl_hw_latency_us(kRel, NcclHw::NvLink, NcclAlgo::Ring, NcclProto::Simple));
  d.net_step_overhead = microseconds(net_us);
  d.op_latency = microseconds(p.base_latency_scale *
                              algo::nccl_base_latency_us(kRel, NcclAlgo::Ring, NcclProto::Simple));
  return d;
}

algo::CostParams with_fabric(algo::CostParams wire, const FabricProbe& fabric) {
  if (fabric.rails_rate.value > 0) {
    wire.nic_sharing =
        std::max(wire.nic_sharing, wire.inter.bandwidth.value / fabric.rails_rate.value);
  }
  return wire;
}

algo::CostParams with_software_costs(algo::CostParams p, const ShapeDefaults& d) {
  for (algo::HopCost* h : {&p.intra, &p.gpu_to_cpu}) h->latency += d.intra_step_overhead;
  for (algo::HopCost* h : {&p.inter, &p.net_to_cpu}) h->latency += d.net_step_overhead;
  return p;
}

ClosedFormTimer::ClosedFormTimer(algo::RankLayout layout, algo::CostParams params,
                                 Seconds op_latency)
    : layout_(std::move(layout)), params_(params), wire_(params), op_latency_(op_latency) {}

Expected<ClosedFormTimer> ClosedFormTimer::create(const topo::ClusterSpec& spec,
                                                  const ShapeDefaults& d,
                                                  const FabricProbe* fabric) {
  topo::ClusterSpec small = spec;
  small.hosts = std::min(spec.hosts, 2);
  TT_TRY(const topo::Topology t, topo::build_topology(small));
  algo::CostParams wire = algo::cost_params_from_topology(t);
  if (fabric) wire = with_fabric(wire, *fabric);
  const algo::CostParams p = with_software_costs(wire, d);
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
  ClosedFormTimer timer(std::move(layout), p, d.op_latency);
  timer.wire_ = wire;
  return timer;
}

Expected<const algo::Algorithm*> ClosedFormTimer::algorithm(const AlgorithmChoice& a) const {
  if (auto it = algorithms_.find(a); it != algorithms_.end()) return it->second.get();
  TT_TRY(std::unique_ptr<algo::Algorithm> made, make_schedule_algorithm(a));
  std::shared_ptr<algo::Algorithm> shared(std::move(made));
  algorithms_.emplace(a, shared);
  return shared.get();
}

Expected<Seconds> ClosedFormTimer::closed_form(const AlgorithmChoice& a, Bytes bytes,
                                               const algo::CostParams& p) const {
  // Without an NCCL predictor, NCCL's algorithms stand for topotune's ring and double binary
  // tree, and NCCL's own choice for the faster of the two.
  if (a.kind == AlgoKind::NcclRing || a.kind == AlgoKind::NcclTree) {
    AlgorithmChoice own = a;
    own.kind = a.kind == AlgoKind::NcclRing ? AlgoKind::Ring : AlgoKind::DbTree;
    return closed_form(own, bytes, p);
  }
  if (a.kind == AlgoKind::NcclDefault) {
    AlgorithmChoice ring = a, tree = a;
    ring.kind = AlgoKind::Ring;
    tree.kind = AlgoKind::DbTree;
    TT_TRY(const Seconds r, closed_form(ring, bytes, p));
    const Expected<Seconds> t = closed_form(tree, bytes, p);
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
  return alg->closed_form(spec, layout_, p);
}

Expected<Seconds> ClosedFormTimer::allreduce(const AlgorithmChoice& a, Bytes bytes) const {
  TT_TRY(const Seconds t, closed_form(a, bytes, params_));
  if (t.value <= 0) return t;
  return t + op_latency_;
}

Expected<Seconds> ClosedFormTimer::software_overhead(const AlgorithmChoice& a, Bytes bytes) const {
  TT_TRY(const Seconds with, allreduce(a, bytes));
  TT_TRY(const Seconds wire, closed_form(a, bytes, wire_));
  return Seconds(std::max(0.0, with.value - wire.value));
}

}  // namespace topotune::tune
