#pragma once
// The algorithm registry: build an Algorithm by name, as every command names it. The name
// grammar is algorithm_choice.h's (docs/algorithms.md): ring, dbtree, rhd, ps(k=N),
// hierarchical(X), /chN, NCCL's nccl:default/nccl:ring/nccl:tree (recognised, but topotune has
// no schedule of them), and the aliases tree, hierarchical:X. Besides those: a family that
// takes an argument, named without it ("ps", "hierarchical"), takes what the argument would say
// from the options (--shards, --ps-placement, --inner); "ring" with --collective
// reduce_scatter/allgather/broadcast picks the ring variant of that collective;
// reduce_scatter_ring, allgather_ring and broadcast_ring name those variants directly. Every
// list here is read from the family table (algorithm_family.h).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/algorithm_choice.h"
#include "algorithms/schedule/collective_spec.h"

namespace topotune::algo {

/// A concrete name of every schedule family topotune generates (ps with its shards from the
/// options; hierarchical once per inner family), then the ring variants, in the table's order:
/// for tests that cover them all.
std::vector<std::string> algorithm_names();
/// The grammar in one line ("ring, dbtree, rhd, ps(k=N), ..."), for messages and --help.
std::string algorithm_names_text();

/// The algorithm `name` with `options`. `collective` lets "ring" pick the ring variant of a
/// reduce-scatter, allgather or broadcast. Errors: InvalidArgument for an unknown name
/// (listing the known ones), Unsupported for NCCL's own algorithms.
Expected<std::unique_ptr<Algorithm>> make_algorithm(
    std::string_view name, const AlgorithmOptions& options,
    sched::Collective collective = sched::Collective::Allreduce);

}  // namespace topotune::algo
