#include "planning/sharded_step.h"

#include <algorithm>
#include <vector>

namespace topotune::tune {
namespace {

// One step's streams and the collectives issued on them.
class StepRun {
 public:
  StepRun(const ShardUnits& units, const ShardedStepConfig& config, const ShardedComm& comm)
      : units_(units), c_(config), comm_(comm), ready_(units.units.size(), -1.0) {}

  Expected<ShardedStepResult> run() {
    TT_TRY_VOID(forward());
    if (c_.reshard_after_forward) {
      for (std::size_t u = 0; u < ready_.size(); ++u) {
        if (!units_.units[u].root) ready_[u] = -1.0;
      }
    }
    TT_TRY_VOID(backward());
    double end = std::max({compute_, reduce_free_, replica_free_});
    end += c_.optimizer.value;
    if (c_.post_gather_bucket_params > 0) {
      // ZeRO-1/2: every rank gathers the updated parameters after its optimizer step.
      std::int64_t left = units_.total_params();
      while (left > 0) {
        const std::int64_t n = std::min(left, c_.post_gather_bucket_params);
        TT_TRY(end, issue(comm_.allgather, comm_.allgather_error, n * c_.param_bytes, end, end));
        left -= n;
      }
    }
    r_.optimizer = c_.optimizer;
    r_.step = Seconds(end);
    r_.exposed_comm =
        Seconds(end - r_.forward_compute.value - r_.backward_compute.value - c_.optimizer.value);
    return r_;
  }

 private:
  // Starts a collective of `params`-derived bytes when `ready` and its stream are; returns
  // its end and advances the stream.
  Expected<double> issue(const CollectiveTime& time, const CollectiveError& error,
                         std::int64_t bytes, double ready, double& stream) {
    TT_TRY(const Seconds t, time(Bytes(bytes)));
    if (error) r_.band += Seconds(t.value * error(Bytes(bytes)));
    const double end = std::max(ready, stream) + t.value;
    stream = end;
    r_.comm_busy += t;
    ++r_.collectives;
    return end;
  }

  // Gathers unit `u`, the `place`-th of its pass, unless it is gathered already. `starts`:
  // when each earlier place's compute started (the prefetch rule); `begin`: the pass's start.
  Expected<void> gather(int u, int place, const std::vector<double>& starts, double begin) {
    double& ready = ready_[static_cast<std::size_t>(u)];
    if (!c_.gather_params || ready >= 0) return {};
    const int ahead = place - std::max(1, c_.prefetch);
    const double issued = ahead >= 0 ? starts[static_cast<std::size_t>(ahead)] : begin;
    const std::int64_t bytes = units_.units[static_cast<std::size_t>(u)].params * c_.param_bytes;
    TT_TRY(ready, issue(comm_.allgather, comm_.allgather_error, bytes, issued, gather_free_));
    return {};
  }

  Expected<void> forward() {
    std::vector<int> place(units_.units.size(), -1);
    std::vector<double> starts;
    for (const ComputeSegment& s : units_.segments) {
      int& p = place[static_cast<std::size_t>(s.unit)];
      const bool first = p < 0;
      if (first) p = static_cast<int>(starts.size());
      TT_TRY_VOID(gather(s.unit, p, starts, 0.0));
      const double start = std::max(compute_, std::max(ready_[s.unit], 0.0));
      if (first) starts.push_back(start);
      compute_ = start + s.forward.value;
      r_.forward_compute += s.forward;
    }
    return {};
  }

  // Reduces `pending_` gradients made ready now; without overlap compute waits for it.
  Expected<void> reduce() {
    if (pending_ == 0) return {};
    const std::int64_t bytes = pending_ * c_.grad_bytes;
    TT_TRY(const double end,
           issue(comm_.reduce, comm_.reduce_error, bytes, compute_, reduce_free_));
    if (c_.replica_allreduce) {
      TT_TRY_VOID(issue(comm_.replica_allreduce, comm_.replica_allreduce_error,
                        bytes / std::max(1, c_.shard_ranks), end, replica_free_));
    }
    if (!c_.overlap_reduce) compute_ = std::max(compute_, end);
    pending_ = 0;
    return {};
  }

  Expected<void> backward() {
    const double begin = compute_;
    std::vector<int> place(units_.units.size(), -1);
    std::vector<int> left(units_.units.size(), 0);  // backward segments still to run per unit
    for (const ComputeSegment& s : units_.segments) ++left[static_cast<std::size_t>(s.unit)];
    std::vector<double> starts;
    for (auto it = units_.segments.rbegin(); it != units_.segments.rend(); ++it) {
      const ComputeSegment& s = *it;
      const auto u = static_cast<std::size_t>(s.unit);
      const bool first = place[u] < 0;
      if (first) place[u] = static_cast<int>(starts.size());
      TT_TRY_VOID(gather(s.unit, place[u], starts, begin));
      const double start = std::max(compute_, std::max(ready_[u], 0.0));
      if (first) starts.push_back(start);
      compute_ = start + s.backward.value;
      r_.backward_compute += s.backward;
      if (--left[u] > 0) continue;
      // The unit's gradients are complete: reduce them (or fill the bucket).
      pending_ += units_.units[u].params;
      if (c_.reduce_bucket_params <= 0 || pending_ >= c_.reduce_bucket_params) {
        TT_TRY_VOID(reduce());
      }
    }
    return reduce();
  }

  const ShardUnits& units_;
  const ShardedStepConfig& c_;
  const ShardedComm& comm_;
  std::vector<double> ready_;  ///< per unit: when its gather ends; < 0: not gathered
  double compute_ = 0, gather_free_ = 0, reduce_free_ = 0, replica_free_ = 0;
  std::int64_t pending_ = 0;
  ShardedStepResult r_;
};

}  // namespace

Expected<ShardedStepResult> simulate_sharded_step(const ShardUnits& units,
                                                  const ShardedStepConfig& config,
                                                  const ShardedComm& comm) {
  return StepRun(units, config, comm).run();
}

}  // namespace topotune::tune
