#pragma once
// The algorithm registry: build an Algorithm by name, as the CLI and the tuner name them.
//
// Names: ring (allreduce; with --collective reduce_scatter/allgather/broadcast it picks the
// ring variant of that collective), tree, rhd, ps, hierarchical (inner from the options, or
// "hierarchical:tree" etc.), reduce_scatter_ring, allgather_ring, broadcast_ring.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/schedule/collective_spec.h"

namespace topotune::algo {

/// Every name make_algorithm accepts, in a stable order (for messages and --help).
std::vector<std::string> algorithm_names();
/// The same names as one comma-separated line ("ring, tree, ..."), for messages and --help.
std::string algorithm_names_text();

/// The algorithm `name` with `options`. `collective` lets "ring" pick the ring variant of a
/// reduce-scatter, allgather or broadcast. Errors: NotFound listing the known names.
Expected<std::unique_ptr<Algorithm>> make_algorithm(
    std::string_view name, const AlgorithmOptions& options,
    sched::Collective collective = sched::Collective::Allreduce);

}  // namespace topotune::algo
