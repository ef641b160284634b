#pragma once
// The identity of an allreduce algorithm: one name grammar for every command (plan, schedule,
// simulate, predict, measure, validate), read from the table of families
// (algorithm_family.h), one factory, one size estimate. docs/algorithms.md documents the
// grammar.
//
// Canonical names (what every command prints):
//   nccl:default            NCCL's own choice (its tuning model picks algorithm and protocol)
//   nccl:ring, nccl:tree    NCCL with NCCL_ALGO=Ring / Tree (NCCL's ring; its double binary tree)
//   ring                    topotune's flat ring schedule
//   dbtree                  topotune's double binary tree schedule
//   rhd                     topotune's recursive halving-doubling (Rabenseifner)
//   ps(k=N)                 topotune's parameter server with N CPU servers (Herring placement)
//   hierarchical(X)         intra-host reduce-scatter, X on each rail, intra-host allgather;
//                           X is ring, dbtree, rhd or ps(k=N)
//   .../chN                 suffix: N channels (NCCL: NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS)
// Accepted aliases (never printed): nccl-default and nccl = nccl:default; tree = dbtree;
// hierarchical:X = hierarchical(X); hierarchical(tree) = hierarchical(dbtree).
// NCCL's algorithms and topotune's schedules never share a name: `nccl:tree` is NCCL's,
// `dbtree` is topotune's.

#include <compare>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/algorithm_family.h"
#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"

namespace topotune::algo {

/// The family's canonical name ("nccl:default", "ring", "dbtree", "ps", "hierarchical").
const char* algo_kind_name(AlgoKind kind);
/// A family by canonical name or alias (nccl-default, nccl, tree); InvalidArgument listing the
/// families otherwise (for --algos).
Expected<AlgoKind> parse_algo_kind(std::string_view name);
/// The families' names as one comma-separated line, for messages and --help.
std::string algo_kind_names_text();

/// One concrete algorithm: a family with its arguments.
struct AlgorithmChoice {
  AlgoKind kind = AlgoKind::NcclDefault;
  AlgoKind inner = AlgoKind::Ring;  ///< Hierarchical only: a family with an InnerRole
  int servers = 0;                  ///< ParameterServer (or Hierarchical over ps): k; 0: options'
  int channels = 0;                 ///< 0: the library's default channel count

  /// The canonical name: "nccl:ring", "ps(k=4)", "hierarchical(dbtree)", "ring/ch8".
  std::string name() const;
  /// True for NCCL's own algorithms (nccl:default, nccl:ring, nccl:tree).
  bool is_nccl() const { return family_of(kind).nccl; }
  auto operator<=>(const AlgorithmChoice&) const = default;
};

/// Parses a canonical name or an alias (see the file comment). InvalidArgument otherwise.
Expected<AlgorithmChoice> parse_algorithm_choice(std::string_view text);

/// The families that may run inside hierarchical(X), as written there, joined by `separator`:
/// "ring, dbtree, rhd, ps(k=N)".
std::string inner_names_text(std::string_view separator);

/// About how many transfers the schedule of `a` has on hosts x gpus_per_host ranks (within a
/// factor of 2; a test checks it). NCCL's algorithms: the same as topotune's ring and tree.
std::int64_t estimated_transfers(const AlgorithmChoice& a, int hosts, int gpus_per_host);

/// True when the schedule of `a` is invariant under a shift by whole hosts and written
/// reduced (the family's row; an Inner family's inner family too).
bool shift_invariant(const AlgorithmChoice& a);

/// Every choice the planner can search, in the table's order: each family (ps(k=N) once per
/// N in `server_counts`; hierarchical(X) once per inner family X, and per N when X takes
/// servers). The planner filters it by --algos and the rows' PlannerSearch.
std::vector<AlgorithmChoice> plannable_choices(std::span<const int> server_counts);

/// topotune's schedule generator for `a` (its family's factory), starting from `base` options:
/// the name's channel count, servers (CPU placement, as ps(k=N) means) and inner algorithm
/// override them. Unsupported for NCCL's own algorithms, which topotune has no schedule of.
Expected<std::unique_ptr<Algorithm>> make_choice_algorithm(
    const AlgorithmChoice& a, AlgorithmOptions base = {},
    sched::Collective collective = sched::Collective::Allreduce);

}  // namespace topotune::algo
