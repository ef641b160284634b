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

#include "algorithms/algorithm_choice.h"
#include "core/expected.h"
#include "core/units.h"

namespace topotune::tune {

// The algorithm identity (families, names, grammar) is the algorithms module's: one
// definition for every command (algorithms/algorithm_choice.h, docs/algorithms.md).
using algo::algo_kind_name;
using algo::AlgoKind;
using algo::AlgorithmChoice;
using algo::estimated_transfers;
using algo::parse_algo_kind;
using algo::parse_algorithm_choice;

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
