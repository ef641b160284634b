#pragma once
// AlgorithmFamily: the one registration of an allreduce algorithm. A family's row says
// everything the rest of topotune asks of it: its name and aliases, the argument its name takes
// (ps(k=N), hierarchical(X)), the factory of its schedule generator, its transfer estimate,
// whether it can run across hosts inside hierarchical(X) (and how), whether the planner
// searches it, and whether its schedule repeats under a shift by whole hosts (the simulator's
// symmetry). Parsing, naming, the registry, the planner's search list, the simulator timer's
// symmetry and the frameworks' capability table read the rows; none repeats a list of kinds.
// Adding an algorithm: its header/source, one row in algorithm_family.cc, its test
// (docs/adding-an-algorithm.md).
//
// The table is built in (algorithm_family.cc); register_algorithm_family adds a row at run
// time, for tests that check a new family reaches every command through the row alone.

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/algo_kind.h"
#include "algorithms/algorithm.h"
#include "algorithms/schedule/collective_spec.h"

namespace topotune::algo {

struct PhaseContext;  // phase_context.h

/// The argument a family's name takes.
enum class FamilyArgument {
  None,     ///< "ring"
  Servers,  ///< "ps(k=N)": N CPU servers; bare "ps": the options' shards and placement
  Inner,    ///< "hierarchical(X)": X a family with an InnerRole; bare: the options' inner
};

/// Whether the planner searches a family when --algos does not name it.
enum class PlannerSearch {
  Always,       ///< on every backend
  WithoutNccl,  ///< not on the nccl backend, whose NCCL version of it runs over every rail
  Never,        ///< only when --algos names it
};

/// One rail of a hierarchical allreduce, as its inner algorithm builds it.
struct InnerRail {
  const RankLayout& layout;
  const AlgorithmOptions& options;
  const std::vector<std::vector<EndpointId>>& orders;  ///< the rail's GPUs, each channel's order
  sched::Slice shard;                                  ///< the rail's part of the buffer
  std::vector<EndpointId>& cpus;  ///< each host's CPU endpoint, added on first use
  int period = 0;                 ///< > 0: reduced by this many hosts (shift_invariant only)
};

/// One rail of a hierarchical allreduce, as its inner algorithm's closed form sees it.
struct InnerCostRail {
  const RankLayout& layout;
  const AlgorithmOptions& options;
  const std::vector<RankId>& ranks;  ///< the rail: GPU 0 of each host, in ring order
  double shard;                      ///< bytes the rail reduces
  const CostParams& params;          ///< the cluster's parameters
  const CostParams& rails;           ///< the same with the NIC shared by every rail at once
};

/// How a family runs across hosts inside hierarchical(X).
struct InnerRole {
  /// Adds the allreduce of rail.shard over the rail's GPUs to ctx's schedule.
  void (*add)(const PhaseContext& ctx, InnerRail& rail);
  /// Its α–β–γ time, in seconds.
  double (*closed_form)(const InnerCostRail& rail);
};

/// The schedule generator of a family for `options`; `collective` lets a family pick its
/// variant of a reduce-scatter, allgather or broadcast (ring does).
using MakeAlgorithm = std::unique_ptr<Algorithm> (*)(const AlgorithmOptions& options,
                                                     sched::Collective collective);
/// About how many transfers one channel of its schedule has on hosts x gpus ranks (`servers`:
/// ps shards, 0 for the default; `inner`: hierarchical's inner family). Within a factor of 2.
using EstimateTransfers = std::int64_t (*)(std::int64_t hosts, std::int64_t gpus,
                                           std::int64_t servers, AlgoKind inner);

/// One family: the single definition every command reads.
struct AlgorithmFamily {
  AlgoKind kind;
  std::string name;                  ///< canonical, printed ("nccl:default", "ring", "ps")
  std::vector<std::string> aliases;  ///< accepted, never printed ("tree" for dbtree)
  std::string summary;               ///< one line for --help and docs
  bool nccl = false;  ///< NCCL's own algorithm: NCCL runs it, the NCCL predictor times it
  FamilyArgument argument = FamilyArgument::None;
  MakeAlgorithm make = nullptr;  ///< null for NCCL's own (topotune has no schedule of them)
  EstimateTransfers transfers = nullptr;
  const InnerRole* inner = nullptr;  ///< non-null: may be X in hierarchical(X)
  PlannerSearch search = PlannerSearch::Always;
  /// Its schedule is invariant under a shift by whole hosts and written reduced
  /// (Algorithm::generate_reduced); for an Inner family, when its inner one is too.
  bool shift_invariant = false;
};

/// Every family, built-in ones first in a stable order (for messages, --help and tests), then
/// registered ones. References stay valid for the life of the program.
const std::deque<AlgorithmFamily>& algorithm_families();
/// The family of `kind` (a bug if there is none).
const AlgorithmFamily& family_of(AlgoKind kind);
/// The family named `name` or one of its aliases; nullptr if none.
const AlgorithmFamily* find_family(std::string_view name);

/// Adds `row` to the table with a fresh kind (its `kind` field is ignored) and returns that
/// kind. For tests. Not thread-safe: register before anything reads the table concurrently.
/// Its name and aliases must not clash with another family's (asserted).
AlgoKind register_algorithm_family(AlgorithmFamily row);

}  // namespace topotune::algo
