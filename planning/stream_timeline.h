#pragma once
// StreamTimeline: tasks on in-order streams (as CUDA streams run kernels, or the threads of
// the emulated check run collectives), some of which share a network while in flight.
//
// A task starts when its stream's previous task has ended and every task it waits for has
// started or ended (as it says); it then progresses until its work is done. A task on no
// network progresses at rate 1 (compute: its work is its duration). Tasks on one network
// share it by processor sharing: while k of them are in flight each progresses at 1/k, what
// the flow simulator's max-min solver (simulator/max_min_solver.h) gives k equal flows on
// one bottleneck link. So a collective's work is its time alone, two equal collectives
// started together both end at twice that, and one alone keeps its time.
//
// Deterministic: the loop advances from one task's end to the next and starts tasks in id
// order; nothing depends on hashing or on wall time.

#include <vector>

#include "core/units.h"

namespace topotune::tune {

/// What a task waits for besides its stream's order: task `task`'s start or its end.
struct TaskWait {
  int task = 0;
  bool on_start = false;  ///< true: its start; false: its end
};

/// One task of a timeline.
struct StreamTask {
  int stream = 0;               ///< >= 0; tasks of one stream run one at a time in id order
  Seconds work{0};              ///< time alone (>= 0); a zero-work task ends as it starts
  int network = -1;             ///< < 0: no shared network; else tasks of equal network share it
  std::vector<TaskWait> waits;  ///< tasks with smaller ids
};

class StreamTimeline {
 public:
  /// Appends `task`; returns its id (0, 1, ...). Waits must name smaller ids (asserted), so
  /// the timeline always runs to its end.
  int add(StreamTask task);

  /// Times every task. Call once, after the last add.
  void run();

  /// When task `id` started and ended (after run()).
  Seconds start(int id) const { return Seconds(start_[static_cast<std::size_t>(id)]); }
  Seconds end(int id) const { return Seconds(end_[static_cast<std::size_t>(id)]); }
  /// The last end of any task; 0 without tasks.
  Seconds makespan() const;

  int size() const { return static_cast<int>(tasks_.size()); }
  /// The last task added on `stream`, or -1.
  int last_on(int stream) const;

 private:
  bool can_start(int id) const;
  // Starts every stream head that can start at now_; zero-work tasks end at once.
  void start_ready(std::vector<std::size_t>& head, std::vector<int>& running);
  // Advances now_ to the next end among `running` and ends the tasks that end then.
  void advance(std::vector<int>& running, std::vector<std::size_t>& head);

  std::vector<StreamTask> tasks_;
  std::vector<std::vector<int>> streams_;  ///< task ids per stream, in order
  std::vector<double> start_, end_;
  std::vector<double> left_;    ///< work still to do at anchor_, seconds alone
  std::vector<double> anchor_;  ///< when left_ was last brought up to date
  std::vector<double> slow_;    ///< slowdown since anchor_ (k sharing); 0: not yet running
  std::vector<bool> started_, done_;
  double now_ = 0;
};

}  // namespace topotune::tune
