#pragma once
// Where `topotune measure` gets its schedules: the algorithms registry, generating for the
// layout being measured (the glue between runtime and algorithms/topology lives in cli/, as
// the runtime may not depend on them).

#include <optional>
#include <string>
#include <vector>

#include "algorithms/schedule/schedule.h"
#include "core/expected.h"

namespace topotune::cli {

/// The measured layout: the cluster JSON if given, else `ranks_per_node` ranks per host.
struct MeasureLayout {
  std::string cluster_file;  ///< empty: none
  int ranks_per_node = 1;
  int hosts = 1;
  int channels = 1;  ///< algorithm options (--channels, --chunks)
  int chunks = 1;
};

/// Checks the layout against the ranks actually launched (`rank_hosts`: each rank's host name,
/// as MPI reports them); --ranks-per-node 0 means "as launched".
Expected<MeasureLayout> make_measure_layout(const std::string& cluster_file, int ranks_per_node,
                                            const std::vector<std::string>& rank_hosts);

/// The schedule of `algorithm` for `spec` on `layout`.
Expected<sched::Schedule> make_measure_schedule(const std::string& algorithm,
                                                const sched::CollectiveSpec& spec,
                                                const MeasureLayout& layout);

}  // namespace topotune::cli
