#include "algorithms/ring_reduce_scatter.h"

#include "algorithms/cost_model.h"
#include "algorithms/ring_allreduce.h"
#include "algorithms/ring_pass.h"

namespace topotune::algo {

std::string RingReduceScatter::name() const {
  return "reduce_scatter_ring(channels=" + std::to_string(options_.channels) +
         ",chunks=" + std::to_string(options_.chunks) + ")";
}

Expected<void> RingReduceScatter::supports(const sched::CollectiveSpec& spec,
                                           const RankLayout& layout) const {
  return check_common(spec, layout, {sched::Collective::ReduceScatter});
}

Expected<sched::Schedule> RingReduceScatter::generate(const sched::CollectiveSpec& spec,
                                                      const RankLayout& layout) const {
  TT_TRY_VOID(supports(spec, layout));
  sched::ScheduleBuilder b(spec, name());
  add_owned_ring_half(PhaseContext{b, sched::dtype_size(spec.dtype)}, layout, options_.channels,
                      options_.chunks, true);
  return std::move(b).build();
}

Expected<Seconds> RingReduceScatter::closed_form(const sched::CollectiveSpec& spec,
                                             const RankLayout& layout,
                                             const CostParams& params) const {
  TT_TRY_VOID(supports(spec, layout));
  const double S = spec.bytes.as_double();
  const HopCost hop = slowest_ring_hop(layout, params, options_.channels,
                                       S / (spec.ranks * options_.chunks));
  return ring_time(spec.ranks, S, options_.chunks, hop, params.gamma_gpu(), true, false);
}

}  // namespace topotune::algo
