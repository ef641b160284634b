#include "algorithms/ring_allgather.h"

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

}  // namespace topotune::algo
