#include "planning/stream_timeline.h"

#include <algorithm>
#include <limits>
#include <map>

#include "core/assert.h"

namespace topotune::tune {

int StreamTimeline::add(StreamTask task) {
  const int id = size();
  TT_ASSERT(task.stream >= 0, "task %d: stream %d", id, task.stream);
  TT_ASSERT(task.work.value >= 0, "task %d: negative work", id);
  for (const TaskWait& w : task.waits) {
    TT_ASSERT(w.task >= 0 && w.task < id, "task %d waits for task %d", id, w.task);
  }
  if (static_cast<std::size_t>(task.stream) >= streams_.size()) {
    streams_.resize(static_cast<std::size_t>(task.stream) + 1);
  }
  streams_[static_cast<std::size_t>(task.stream)].push_back(id);
  tasks_.push_back(std::move(task));
  return id;
}

int StreamTimeline::last_on(int stream) const {
  const auto s = static_cast<std::size_t>(stream);
  return s < streams_.size() && !streams_[s].empty() ? streams_[s].back() : -1;
}

Seconds StreamTimeline::makespan() const {
  return Seconds(end_.empty() ? 0.0 : *std::max_element(end_.begin(), end_.end()));
}

bool StreamTimeline::can_start(int id) const {
  for (const TaskWait& w : tasks_[static_cast<std::size_t>(id)].waits) {
    const auto t = static_cast<std::size_t>(w.task);
    if (w.on_start ? !started_[t] : !done_[t]) return false;
  }
  return true;
}

void StreamTimeline::start_ready(std::vector<std::size_t>& head, std::vector<int>& running) {
  // Repeat until nothing starts: a zero-work task ending may let its stream's next start, or
  // a task waiting for it on an earlier stream.
  for (bool started = true; started;) {
    started = false;
    for (std::size_t s = 0; s < streams_.size(); ++s) {
      while (head[s] < streams_[s].size()) {
        const int id = streams_[s][head[s]];
        const auto i = static_cast<std::size_t>(id);
        if (started_[i] || !can_start(id)) break;
        started_[i] = true;
        start_[i] = now_;
        started = true;
        if (left_[i] > 0) {
          anchor_[i] = now_;
          slow_[i] = 0;
          running.push_back(id);
          break;
        }
        done_[i] = true;
        end_[i] = now_;
        ++head[s];
      }
    }
  }
}

void StreamTimeline::advance(std::vector<int>& running, std::vector<std::size_t>& head) {
  std::map<int, int> sharing;  // network -> tasks in flight on it
  for (int id : running) {
    const int net = tasks_[static_cast<std::size_t>(id)].network;
    if (net >= 0) ++sharing[net];
  }
  // Each task ends at anchor + left x slowdown (1 alone or off any network, k on a network k
  // tasks share). A task is re-anchored only when its slowdown changes, so one whose rate
  // never changes ends at exactly start + work, and equal steps stay equal to the last bit.
  double next = std::numeric_limits<double>::infinity();
  for (int id : running) {
    const auto i = static_cast<std::size_t>(id);
    const int net = tasks_[i].network;
    const double k = net >= 0 ? static_cast<double>(sharing[net]) : 1.0;
    if (k != slow_[i]) {
      if (slow_[i] > 0) left_[i] = std::max(0.0, left_[i] - (now_ - anchor_[i]) / slow_[i]);
      anchor_[i] = now_;
      slow_[i] = k;
    }
    next = std::min(next, anchor_[i] + left_[i] * k);
  }
  now_ = next;
  std::vector<int> still;
  for (int id : running) {
    const auto i = static_cast<std::size_t>(id);
    const double finish = anchor_[i] + left_[i] * slow_[i];
    // Ends now when its end is now, up to rounding.
    if (finish - next <= 1e-12 * std::max(1.0, next)) {
      done_[i] = true;
      end_[i] = finish;
      ++head[static_cast<std::size_t>(tasks_[i].stream)];
    } else {
      still.push_back(id);
    }
  }
  running = std::move(still);
}

void StreamTimeline::run() {
  const std::size_t n = tasks_.size();
  start_.assign(n, 0.0);
  end_.assign(n, 0.0);
  left_.resize(n);
  for (std::size_t i = 0; i < n; ++i) left_[i] = tasks_[i].work.value;
  anchor_.assign(n, 0.0);
  slow_.assign(n, 0.0);
  started_.assign(n, false);
  done_.assign(n, false);
  now_ = 0;
  std::vector<std::size_t> head(streams_.size(), 0);
  std::vector<int> running;
  for (;;) {
    start_ready(head, running);
    if (running.empty()) break;
    advance(running, head);
  }
  TT_ASSERT(std::all_of(done_.begin(), done_.end(), [](bool d) { return d; }),
            "stream timeline stalled: a task waits for one that never runs");
}

}  // namespace topotune::tune
