#pragma once
// Structural validation of a Schedule, O(transfers + deps): what every consumer may rely on.

#include <cstdint>

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"

namespace topotune::sched {

/// Checks: the spec is sane (CollectiveSpec::check); every endpoint id exists; src != dst;
/// every slice lies inside [0, bytes) and on element boundaries; dependencies point backwards;
/// channels are non-negative. The end state is proved separately by verify() (interpreter.h).
Expected<void> validate(const Schedule& s);

/// The part of validate() that is not per transfer: the spec is sane and every extra endpoint
/// has a host. ScheduleBuilder::build() runs only this when every transfer it added kept the
/// rules below.
Expected<void> validate_spec_and_endpoints(const Schedule& s);

/// The rules validate() applies to one transfer that the builder does not already enforce as
/// bugs (endpoints exist, dependencies point backwards, channel range): src != dst, and the
/// slice lies inside [0, bytes) on element boundaries (`elem_mask` = element size - 1, a power
/// of two minus one). Branch-free, because ScheduleBuilder and TransferWriter apply it to every
/// transfer they add. True when a rule is broken.
inline bool transfer_breaks_rules(EndpointId src, EndpointId dst, Slice slice, std::int64_t bytes,
                                  std::int64_t elem_mask) {
  const std::int64_t off = slice.offset.value, size = slice.size.value;
  // Unsigned sum: both are checked non-negative, so it cannot wrap, and nothing overflows.
  const bool outside = (off < 0) | (size < 0) |
                       (static_cast<std::uint64_t>(off) + static_cast<std::uint64_t>(size) >
                        static_cast<std::uint64_t>(bytes));
  return (src == dst) | outside | (((off | size) & elem_mask) != 0);
}

}  // namespace topotune::sched
