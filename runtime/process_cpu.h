#pragma once
// The CPU time this process has used, for checks that must tell their own ranks' CPU use from
// other work's on a shared machine (an emulated cluster's ranks share the host's cores with
// whatever else runs there; tests/lib/cpu_share.sh compares the two).

#include "core/units.h"

namespace topotune::rt {

/// User + system CPU time of this process so far, all its threads (getrusage RUSAGE_SELF).
Seconds process_cpu_time();

}  // namespace topotune::rt
