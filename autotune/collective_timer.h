#pragma once
// CollectiveTimer: how long one allreduce of a given size takes with a given algorithm. The
// tuner asks it for every bucket of every candidate, so implementations range from a closed
// form (microseconds, for screening thousands of candidates) to the flow simulator (ranking
// the top few). CachedTimer memoises any of them per (algorithm, bytes): a bucket sweep asks
// the same sizes again and again.

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "core/expected.h"
#include "core/units.h"

namespace topotune::tune {

/// The allreduce algorithms the planner searches.
enum class AlgoKind {
  NcclDefault,      ///< whatever NCCL picks by itself (its tuning model)
  Ring,             ///< flat ring over all ranks (NCCL_ALGO=Ring)
  Tree,             ///< NCCL's double binary tree (NCCL_ALGO=Tree)
  HalvingDoubling,  ///< recursive halving-doubling (Rabenseifner), not topology-aware
  ParameterServer,  ///< push/pull through `servers` CPU servers (BytePS / Herring style)
  Hierarchical,     ///< intra-host reduce-scatter, `inner` across hosts, intra-host allgather
};
const char* algo_kind_name(AlgoKind k);
/// The kind named by algo_kind_name() ("nccl-default", "ring", "tree", "rhd", "ps",
/// "hierarchical"); InvalidArgument listing them otherwise.
Expected<AlgoKind> parse_algo_kind(const std::string& name);

/// One point of the algorithm axis of the search space.
struct AlgorithmChoice {
  AlgoKind kind = AlgoKind::NcclDefault;
  AlgoKind inner = AlgoKind::Ring;  ///< Hierarchical only
  int servers = 0;                  ///< ParameterServer (or Hierarchical over ps): k
  int channels = 0;                 ///< 0: the library's default channel count

  /// Stable display/JSON name: "ring", "ps(k=4)", "hierarchical(tree)",
  /// "hierarchical(ps(k=2))", "ring/ch8".
  std::string name() const;
  auto operator<=>(const AlgorithmChoice&) const = default;
};

/// Parses name() back ("ring", "ps(k=4)", "hierarchical(tree)", "nccl-default", "/chN").
Expected<AlgorithmChoice> parse_algorithm_choice(const std::string& text);

class CollectiveTimer {
 public:
  virtual ~CollectiveTimer() = default;
  /// What produces the times ("closed forms ...", "flow simulator ..."), for reports.
  virtual std::string name() const = 0;
  /// Time of one allreduce of `bytes` (the whole buffer each rank contributes).
  /// Errc::Unsupported when the algorithm cannot run on this cluster (e.g. too many servers).
  virtual Expected<Seconds> allreduce(const AlgorithmChoice& algo, Bytes bytes) const = 0;
  /// Which model times `algo` here, for the plan's rows: "nccl-predictor", "closed-form",
  /// "simulated" (the timers of one model of time, docs/planner.md), or name() by default.
  virtual std::string model(const AlgorithmChoice& algo) const {
    (void)algo;
    return name();
  }
};

/// Memoises another timer (not thread-safe). Errors are cached too.
class CachedTimer final : public CollectiveTimer {
 public:
  explicit CachedTimer(const CollectiveTimer& inner) : inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  Expected<Seconds> allreduce(const AlgorithmChoice& algo, Bytes bytes) const override;
  std::string model(const AlgorithmChoice& algo) const override { return inner_.model(algo); }
  /// Number of calls that reached the wrapped timer.
  int misses() const { return misses_; }

 private:
  const CollectiveTimer& inner_;
  mutable std::map<std::tuple<AlgorithmChoice, std::int64_t>, Expected<Seconds>> cache_;
  mutable int misses_ = 0;
};

}  // namespace topotune::tune
