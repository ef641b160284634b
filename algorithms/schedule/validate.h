#pragma once
// Structural validation of a Schedule, O(transfers + deps): what every consumer may rely on.

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"

namespace topotune::sched {

/// Checks: the spec is sane (CollectiveSpec::check); every endpoint id exists; src != dst;
/// every slice lies inside [0, bytes) and on element boundaries; dependencies point backwards;
/// channels are non-negative. The end state is proved separately by verify() (interpreter.h).
Expected<void> validate(const Schedule& s);

}  // namespace topotune::sched
