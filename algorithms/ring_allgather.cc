#include "algorithms/ring_allgather.h"

#include "algorithms/cost_model.h"
#include "algorithms/ring_allreduce.h"
#include "algorithms/ring_pass.h"

namespace topotune::algo {

std::string RingAllgather::name() const {
  return "allgather_ring(channels=" + std::to_string(options_.channels) +
         ",chunks=" + std::to_string(options_.chunks) + ")";
}

Expected<void> RingAllgather::supports(const sched::CollectiveSpec& spec,
                                       const RankLayout& layout) const {
  return check_common(spec, layout, {sched::Collective::Allgather});
}

Expected<sched::Schedule> RingAllgather::generate(const sched::CollectiveSpec& spec,
                                                  const RankLayout& layout) const {
  TT_TRY_VOID(supports(spec, layout));
  sched::ScheduleBuilder b(spec, name());
  add_owned_ring_half(PhaseContext{b, sched::dtype_size(spec.dtype)}, layout, options_.channels,
                      options_.chunks, false);
  return std::move(b).build();
}

Expected<Seconds> RingAllgather::closed_form(const sched::CollectiveSpec& spec,
                                             const RankLayout& layout,
                                             const CostParams& params) const {
  TT_TRY_VOID(supports(spec, layout));
  const double S = spec.bytes.as_double();
  const HopCost hop = slowest_ring_hop(layout, params, options_.channels,
                                       S / (spec.ranks * options_.chunks));
  return ring_time(spec.ranks, S, options_.chunks, hop, params.gamma_gpu(), false, true);
}

}  // namespace topotune::algo
