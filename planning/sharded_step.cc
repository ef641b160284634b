#include "planning/sharded_step.h"

#include <algorithm>
#include <vector>

#include "planning/stream_timeline.h"

namespace topotune::tune {
namespace {

// The step's streams, and the network the shard group's collectives share.
constexpr int kCompute = 0, kGather = 1, kReduce = 2, kReplica = 3;
constexpr int kShardGroupNetwork = 0, kAlone = -1;

TaskWait after_start(int task) { return {task, true}; }
TaskWait after_end(int task) { return {task, false}; }
// After `task`'s end; nothing when there is no such task (-1).
std::vector<TaskWait> after_end_of(int task) {
  return task >= 0 ? std::vector<TaskWait>{after_end(task)} : std::vector<TaskWait>{};
}

// One step's tasks, built in the order the job issues them, then timed by a StreamTimeline.
class StepRun {
 public:
  StepRun(const ShardUnits& units, const ShardedStepConfig& config, const ShardedComm& comm)
      : units_(units), c_(config), comm_(comm), gathered_(units.units.size(), -1) {}

  Expected<ShardedStepResult> run() {
    TT_TRY_VOID(forward());
    if (c_.reshard_after_forward) {
      for (std::size_t u = 0; u < gathered_.size(); ++u) {
        if (!units_.units[u].root) gathered_[u] = -1;
      }
    }
    TT_TRY_VOID(backward());
    // The optimizer steps once compute and every reduction are done.
    std::vector<TaskWait> all;
    for (int s : {kCompute, kGather, kReduce, kReplica}) {
      if (const int last = t_.last_on(s); last >= 0) all.push_back(after_end(last));
    }
    const int optimizer = t_.add({kCompute, c_.optimizer, kAlone, all});
    if (c_.post_gather_bucket_params > 0) {
      // ZeRO-1/2: every rank gathers the updated parameters after its optimizer step.
      std::int64_t left = units_.total_params();
      while (left > 0) {
        const std::int64_t n = std::min(left, c_.post_gather_bucket_params);
        TT_TRY_VOID(issue(comm_.allgather, comm_.allgather_error, n * c_.param_bytes, kGather,
                          {after_end(optimizer)}));
        left -= n;
      }
    }
    t_.run();
    r_.optimizer = c_.optimizer;
    r_.step = t_.makespan();
    r_.exposed_comm = Seconds(r_.step.value - r_.forward_compute.value - r_.backward_compute.value -
                              c_.optimizer.value);
    return r_;
  }

 private:
  // A collective of `bytes` on `stream` once `waits` are met; returns its task. The shard
  // group's all-gathers and reductions cross the same links (one group, one ring), so they
  // share them while in flight; the replica allreduce crosses the links between shard groups,
  // which nothing else in flight uses, and its stream runs one at a time.
  Expected<int> issue(const CollectiveTime& time, const CollectiveError& error, std::int64_t bytes,
                      int stream, std::vector<TaskWait> waits) {
    TT_TRY(const Seconds t, time(Bytes(bytes)));
    if (error) r_.band += Seconds(t.value * error(Bytes(bytes)));
    r_.comm_busy += t;
    ++r_.collectives;
    const bool shared = c_.share_shard_group_links && stream != kReplica;
    return t_.add({stream, t, shared ? kShardGroupNetwork : kAlone, std::move(waits)});
  }

  // Gathers unit `u`, the `place`-th of its pass, unless it is gathered already. `starts`:
  // each earlier place's first compute task (the prefetch rule: issued when the compute of
  // the unit `prefetch` places earlier starts); `begin`: what the pass waits for (-1: none).
  Expected<void> gather(int u, int place, const std::vector<int>& starts, int begin) {
    int& task = gathered_[static_cast<std::size_t>(u)];
    if (!c_.gather_params || task >= 0) return {};
    const int ahead = place - std::max(1, c_.prefetch);
    std::vector<TaskWait> waits = after_end_of(begin);
    if (ahead >= 0) waits = {after_start(starts[static_cast<std::size_t>(ahead)])};
    const std::int64_t bytes = units_.units[static_cast<std::size_t>(u)].params * c_.param_bytes;
    TT_TRY(task, issue(comm_.allgather, comm_.allgather_error, bytes, kGather, std::move(waits)));
    return {};
  }

  // A compute segment of unit `u`: after its gather, if it has one.
  int compute(std::size_t u, Seconds work) {
    return t_.add({kCompute, work, kAlone, after_end_of(gathered_[u])});
  }

  Expected<void> forward() {
    std::vector<int> place(units_.units.size(), -1);
    std::vector<int> starts;
    for (const ComputeSegment& s : units_.segments) {
      int& p = place[static_cast<std::size_t>(s.unit)];
      const bool first = p < 0;
      if (first) p = static_cast<int>(starts.size());
      TT_TRY_VOID(gather(s.unit, p, starts, -1));
      const int task = compute(static_cast<std::size_t>(s.unit), s.forward);
      if (first) starts.push_back(task);
      r_.forward_compute += s.forward;
    }
    return {};
  }

  // Reduces `pending_` gradients made ready when the compute issued so far ends; without
  // overlap compute waits for it.
  Expected<void> reduce() {
    if (pending_ == 0) return {};
    const std::int64_t bytes = pending_ * c_.grad_bytes;
    TT_TRY(const int task, issue(comm_.reduce, comm_.reduce_error, bytes, kReduce,
                                 after_end_of(t_.last_on(kCompute))));
    if (c_.replica_allreduce) {
      TT_TRY_VOID(issue(comm_.replica_allreduce, comm_.replica_allreduce_error,
                        bytes / std::max(1, c_.shard_ranks), kReplica, {after_end(task)}));
    }
    if (!c_.overlap_reduce) t_.add({kCompute, Seconds(0), kAlone, {after_end(task)}});
    pending_ = 0;
    return {};
  }

  Expected<void> backward() {
    const int begin = t_.last_on(kCompute);
    std::vector<int> place(units_.units.size(), -1);
    std::vector<int> left(units_.units.size(), 0);  // backward segments still to run per unit
    for (const ComputeSegment& s : units_.segments) ++left[static_cast<std::size_t>(s.unit)];
    std::vector<int> starts;
    for (auto it = units_.segments.rbegin(); it != units_.segments.rend(); ++it) {
      const ComputeSegment& s = *it;
      const auto u = static_cast<std::size_t>(s.unit);
      const bool first = place[u] < 0;
      if (first) place[u] = static_cast<int>(starts.size());
      TT_TRY_VOID(gather(s.unit, place[u], starts, begin));
      const int task = compute(u, s.backward);
      if (first) starts.push_back(task);
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
  std::vector<int> gathered_;  ///< per unit: the task that gathers it; < 0: not gathered
  std::int64_t pending_ = 0;
  StreamTimeline t_;
  ShardedStepResult r_;
};

}  // namespace

Expected<ShardedStepResult> simulate_sharded_step(const ShardUnits& units,
                                                  const ShardedStepConfig& config,
                                                  const ShardedComm& comm) {
  return StepRun(units, config, comm).run();
}

}  // namespace topotune::tune
