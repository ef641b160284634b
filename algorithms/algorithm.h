#pragma once
// Algorithm: turns a collective request into a Schedule for a given rank layout.
//
// Every algorithm of topotune (ring, double binary tree, recursive halving-doubling, parameter
// server, hierarchical, and the ring reduce-scatter/allgather/broadcast) implements this
// interface; make_algorithm() (registry.h) builds one by name. Each algorithm's header documents
// its steps (depth of the dependency DAG), the bytes each rank sends, and its closed-form cost
// (cost_model.h), and the tests check all three against the generated schedule.

#include <initializer_list>
#include <optional>
#include <string>

#include "algorithms/algo_kind.h"
#include "algorithms/cost_params.h"
#include "algorithms/rank_layout.h"
#include "algorithms/schedule/collective_spec.h"
#include "algorithms/schedule/reduced_schedule.h"
#include "algorithms/schedule/schedule.h"
#include "core/expected.h"
#include "core/units.h"

namespace topotune::algo {

/// Where a parameter server's shard servers run.
enum class PsPlacement {
  Colocated,  ///< on GPU ranks 0..k-1 spread across hosts (BytePS-style colocated servers)
  Cpu,        ///< on each host's CPU, one server endpoint per host (Herring/SMDDP-style)
};
const char* ps_placement_name(PsPlacement p);
Expected<PsPlacement> parse_ps_placement(const std::string& name);
/// The name of a family that may run inside hierarchical(X) (its family's name).
const char* inner_algorithm_name(AlgoKind a);
/// A family (by name or alias) that may run inside hierarchical(X): one whose row has an
/// InnerRole (algorithm_family.h). InvalidArgument listing those otherwise.
Expected<AlgoKind> parse_inner_algorithm(const std::string& name);

/// What a schedule may cost in memory, checked before any transfer is built: the budget
/// (0: unlimited) and the bytes the schedule's consumer (the simulator) keeps per transfer on
/// top of the schedule itself. Set by cli/ from the machine's available memory.
struct MemoryBudget {
  Bytes available{0};
  std::int64_t consumer_bytes_per_transfer = 0;
};

/// Knobs shared by the algorithms; each uses the ones that apply to it.
struct AlgorithmOptions {
  int channels = 1;  ///< parallel rings/trees, each on its own part of the buffer
  int chunks = 1;    ///< pipeline chunks per channel
  int shards = 0;    ///< parameter server shards; 0: one per rank (colocated) or per host (cpu)
  PsPlacement ps_placement = PsPlacement::Colocated;
  AlgoKind inner = AlgoKind::Ring;  ///< hierarchical only: the family across hosts
  MemoryBudget memory;              ///< refuse schedules that would not fit (not part of name())
};

/// A schedule generator. Stateless apart from its options; generate() is const and reentrant.
class Algorithm {
 public:
  explicit Algorithm(AlgorithmOptions options) : options_(options) {}
  virtual ~Algorithm() = default;

  /// Name with its options, e.g. "ring(channels=2,chunks=4)"; recorded in the Schedule.
  virtual std::string name() const = 0;
  /// Unsupported (Errc::Unsupported) or invalid (Errc::InvalidArgument) requests, explained.
  virtual Expected<void> supports(const sched::CollectiveSpec& spec,
                                  const RankLayout& layout) const = 0;
  /// The schedule; runs supports() first. The result passes validate(); verify() proves it.
  virtual Expected<sched::Schedule> generate(const sched::CollectiveSpec& spec,
                                             const RankLayout& layout) const = 0;

  /// The schedule reduced by a shift of every rank by `period_hosts` whole hosts
  /// (sched::ReducedSchedule), written without building the full one; nullopt when this
  /// algorithm cannot write it or its schedule is not invariant under that shift (sizes that
  /// do not divide evenly, an order that does not repeat), and then generate() is the way.
  /// The budget check (options().memory) counts the representatives only. Default: nullopt.
  virtual Expected<std::optional<sched::ReducedSchedule>> generate_reduced(
      const sched::CollectiveSpec& spec, const RankLayout& layout, int period_hosts) const;

  /// The α–β–γ time of this algorithm's schedule on an uncongested cluster with `params`,
  /// including the sharing the algorithm causes itself (cost_model.h; formula in each header).
  virtual Expected<Seconds> closed_form(const sched::CollectiveSpec& spec, const RankLayout& layout,
                                        const CostParams& params) const = 0;

  const AlgorithmOptions& options() const { return options_; }

 protected:
  /// Checks shared by all: spec and layout are sane, agree on the rank count, channels and
  /// chunks are in range, and the collective is one of `collectives`.
  Expected<void> check_common(const sched::CollectiveSpec& spec, const RankLayout& layout,
                              std::initializer_list<sched::Collective> collectives) const;

  /// Refuses a schedule of `transfers` transfers with `deps` dependencies in all (saturating
  /// estimates from the header's formula) that the schedule IR cannot index (2^31 transfers,
  /// 2^32 dependencies) or that needs more than options().memory, with "needs X GiB, Y
  /// available"; otherwise reserves room for them in `b`. Called before the first transfer.
  Expected<void> reserve(sched::ScheduleBuilder& b, std::int64_t transfers,
                         std::int64_t deps) const;

  AlgorithmOptions options_;
};

}  // namespace topotune::algo
