#include "algorithms/ring_reduce_scatter.h"

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

}  // namespace topotune::algo
