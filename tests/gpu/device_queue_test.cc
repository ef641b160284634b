// The DeviceExecutor's queueing, checked without a GPU for every allreduce generator on 2..8
// ranks: (1) for every ordered pair of ranks, the sender queues its sends in the same order as
// the receiver queues its receives (NCCL matches by order only); (2) a simulation of the
// streams' semantics finishes: each rank runs its groups one after the other, a message
// completes once the groups holding its two ends are both running, a group once all its
// messages are. A stuck simulation is a deadlock the real run would have.

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/nccl/device_executor.h"
#include "tests/gpu/schedule_cases.h"

namespace topotune::rt {
namespace {

using Queues = std::vector<std::vector<DeviceQueueEntry>>;

// (1): per (src, dst), the transfer ids in send order at src and in receive order at dst.
std::string check_matching(const Queues& q) {
  std::map<std::pair<int, int>, std::vector<int>> sent, received;
  for (std::size_t r = 0; r < q.size(); ++r) {
    for (const DeviceQueueEntry& e : q[r]) {
      if (e.send) {
        sent[{static_cast<int>(r), e.peer.value}].push_back(e.id.value);
      } else {
        received[{e.peer.value, static_cast<int>(r)}].push_back(e.id.value);
      }
    }
  }
  if (sent != received) return "sends and receives are queued in different orders";
  return "";
}

// (2): returns "" when every rank gets through its queue.
std::string simulate(const Queues& q) {
  const std::size_t n = q.size();
  std::vector<std::size_t> head(n, 0);  // index of the first entry of the running group
  std::set<int> done;                   // transfer ids whose message completed
  auto group_end = [&](std::size_t r) {
    std::size_t k = head[r];
    while (k < q[r].size() && q[r][k].group == q[r][head[r]].group) ++k;
    return k;
  };
  for (bool progress = true; progress;) {
    progress = false;
    std::map<int, int> running;  // transfer id -> ends in a running group
    for (std::size_t r = 0; r < n; ++r) {
      for (std::size_t k = head[r]; k < group_end(r); ++k) ++running[q[r][k].id.value];
    }
    for (const auto& [id, ends] : running) {
      if (ends == 2) done.insert(id);
    }
    for (std::size_t r = 0; r < n; ++r) {
      if (head[r] >= q[r].size()) continue;
      const std::size_t end = group_end(r);
      bool all = true;
      for (std::size_t k = head[r]; k < end; ++k) all = all && done.count(q[r][k].id.value) > 0;
      if (all) {
        head[r] = end;
        progress = true;
      }
    }
  }
  for (std::size_t r = 0; r < n; ++r) {
    if (head[r] < q[r].size()) {
      return "rank " + std::to_string(r) + " stuck at transfer " +
             std::to_string(q[r][head[r]].id.value);
    }
  }
  return "";
}

TEST(DeviceQueue, EveryAllreduceScheduleMatchesInOrderAndCannotDeadlock) {
  for (int n : {2, 3, 4, 5, 8}) {
    for (int gpus_per_host : {1, n}) {
      for (const testing::ScheduleCase& c : testing::allreduce_cases()) {
        auto s = testing::make_case_schedule(c, n, gpus_per_host, 4 * 1000, sched::DataType::F32);
        ASSERT_TRUE(s.has_value()) << c.label() << ": " << s.error().message;
        Queues q;
        for (int r = 0; r < n; ++r) {
          auto entries = device_queue(*s, RankId(r));
          ASSERT_TRUE(entries.has_value()) << entries.error().message;
          q.push_back(std::move(*entries));
        }
        const std::string where = c.label() + " on " + std::to_string(n) + " ranks, " +
                                  std::to_string(gpus_per_host) + " per host";
        EXPECT_EQ(check_matching(q), "") << where;
        EXPECT_EQ(simulate(q), "") << where;
      }
    }
  }
}

TEST(DeviceQueue, CheckersCatchWrongOrders) {
  // The checks above must be able to fail. Queueing every send before any receive, one message
  // per group, deadlocks a ring (every rank waits in a send for a peer that waits in its own);
  // swapping two receives breaks the matching.
  auto s = testing::make_case_schedule(testing::allreduce_cases()[0], 3, 3, 4 * 300,
                                       sched::DataType::F32);
  ASSERT_TRUE(s.has_value()) << s.error().message;
  Queues sends_first;
  Queues swapped;
  for (int r = 0; r < 3; ++r) {
    auto q = device_queue(*s, RankId(r));
    ASSERT_TRUE(q.has_value());
    std::vector<DeviceQueueEntry> reordered;
    for (bool send : {true, false}) {
      for (DeviceQueueEntry e : *q) {
        if (e.send != send) continue;
        e.group = static_cast<int>(reordered.size());
        reordered.push_back(e);
      }
    }
    sends_first.push_back(reordered);
    swapped.push_back(*q);
  }
  EXPECT_NE(simulate(sends_first), "");
  EXPECT_EQ(check_matching(sends_first), "");  // per pair, the order is still the same
  for (std::size_t k = 0, first = SIZE_MAX; k < swapped[1].size(); ++k) {
    if (swapped[1][k].send) continue;
    if (first == SIZE_MAX) {
      first = k;
    } else {
      std::swap(swapped[1][first].id, swapped[1][k].id);
      break;
    }
  }
  EXPECT_NE(check_matching(swapped), "");
}

TEST(DeviceQueue, RingStepsShareAGroup) {
  // Ring allreduce on 4 ranks, ring 0-1-2-3: step s (0..5) is transfers 4s+i from rank i to
  // i+1, and 4s+i depends on 4(s-1)+(i-1), what rank i received in step s-1. Rank 0 queues
  // send 4s then receive 4s+3 in every step. The receive depends (through ranks 3, 2, 1) on
  // rank 0's send of step s-3, already in an earlier group, so it joins its step's send; the
  // next send depends on it and starts a new group: 6 groups of one send and one receive.
  auto s = testing::make_case_schedule(testing::allreduce_cases()[0], 4, 4, 4 * 1024,
                                       sched::DataType::F32);
  ASSERT_TRUE(s.has_value()) << s.error().message;
  auto q = device_queue(*s, RankId(0));
  ASSERT_TRUE(q.has_value()) << q.error().message;
  ASSERT_EQ(q->size(), 12u);
  for (std::size_t k = 0; k < q->size(); ++k) {
    const DeviceQueueEntry& e = (*q)[k];
    EXPECT_EQ(e.group, static_cast<int>(k / 2)) << "entry " << k;
    EXPECT_EQ(e.send, k % 2 == 0) << "entry " << k;
    EXPECT_EQ(e.peer, RankId(k % 2 == 0 ? 1 : 3)) << "entry " << k;
  }
}

}  // namespace
}  // namespace topotune::rt
