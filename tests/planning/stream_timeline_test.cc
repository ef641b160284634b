// StreamTimeline: in-order streams whose tasks share a network by processor sharing, on cases
// solved by hand.

#include "planning/stream_timeline.h"

#include <gtest/gtest.h>

namespace topotune::tune {
namespace {

constexpr int kNet = 0, kNone = -1;

TEST(StreamTimeline, ATaskAloneOnANetworkKeepsItsTime) {
  StreamTimeline t;
  const int a = t.add({0, Seconds(3), kNet, {}});
  t.run();
  EXPECT_DOUBLE_EQ(t.start(a).value, 0.0);
  EXPECT_DOUBLE_EQ(t.end(a).value, 3.0);
}

TEST(StreamTimeline, TwoEqualTasksOnOneNetworkTakeTwiceAsLong) {
  // Both start at 0 and progress at 1/2: both end at 2 x 1 s.
  StreamTimeline t;
  const int a = t.add({0, Seconds(1), kNet, {}});
  const int b = t.add({1, Seconds(1), kNet, {}});
  t.run();
  EXPECT_DOUBLE_EQ(t.end(a).value, 2.0);
  EXPECT_DOUBLE_EQ(t.end(b).value, 2.0);
  EXPECT_DOUBLE_EQ(t.makespan().value, 2.0);
}

TEST(StreamTimeline, OnlyTasksOfOneNetworkShare) {
  // Different networks, or none: each runs at its own rate.
  StreamTimeline t;
  const int a = t.add({0, Seconds(1), 0, {}});
  const int b = t.add({1, Seconds(1), 1, {}});
  const int c = t.add({2, Seconds(1), kNone, {}});
  const int d = t.add({3, Seconds(1), kNone, {}});
  t.run();
  for (int id : {a, b, c, d}) EXPECT_DOUBLE_EQ(t.end(id).value, 1.0);
}

TEST(StreamTimeline, ALateTaskSharesOnlyWhileBothAreInFlight) {
  // A (2 s alone) starts at 0 on the network; B (0.5 s alone) waits for a 1 s compute task.
  // [0,1]: A alone does 1 s of its work. From 1 both run at 1/2: B's 0.5 s end at 2, A has
  // done 1.5 s; A's last 0.5 s alone: [2, 2.5].
  StreamTimeline t;
  const int a = t.add({0, Seconds(2), kNet, {}});
  const int compute = t.add({1, Seconds(1), kNone, {}});
  const int b = t.add({2, Seconds(0.5), kNet, {{compute, false}}});
  t.run();
  EXPECT_DOUBLE_EQ(t.start(b).value, 1.0);
  EXPECT_DOUBLE_EQ(t.end(b).value, 2.0);
  EXPECT_DOUBLE_EQ(t.end(a).value, 2.5);
}

TEST(StreamTimeline, StreamsRunInOrderAndWaitsMayNameAStart) {
  // Stream 0: X [0,2], then Y [2,3]. Z (stream 1) waits for Y's start: [2,3]. W (stream 1,
  // after Z) waits for a zero-work task of stream 2 that waits for X's end: W [3,4].
  StreamTimeline t;
  const int x = t.add({0, Seconds(2), kNone, {}});
  const int y = t.add({0, Seconds(1), kNone, {}});
  const int z = t.add({1, Seconds(1), kNone, {{y, true}}});
  const int mark = t.add({2, Seconds(0), kNone, {{x, false}}});
  const int w = t.add({1, Seconds(1), kNone, {{mark, false}}});
  t.run();
  EXPECT_DOUBLE_EQ(t.start(y).value, 2.0);
  EXPECT_DOUBLE_EQ(t.start(z).value, 2.0);
  EXPECT_DOUBLE_EQ(t.end(mark).value, 2.0);
  EXPECT_DOUBLE_EQ(t.start(w).value, 3.0);
  EXPECT_DOUBLE_EQ(t.makespan().value, 4.0);
  EXPECT_EQ(t.last_on(1), w);
  EXPECT_EQ(t.last_on(5), -1);
}

TEST(StreamTimeline, ATaskWhoseRateNeverChangesEndsAtExactlyStartPlusWork) {
  // Compute of 0.7 s beside collectives of 0.1, 0.2 and 0.3 s one after another: the events
  // at 0.1, 0.3 and 0.6 must not move its end by rounding (summing the intervals gives
  // 0.7000000000000001), so that equal steps of two plan rows stay equal and their order
  // stays the candidates' order.
  StreamTimeline t;
  const int compute = t.add({0, Seconds(0.7), kNone, {}});
  for (double w : {0.1, 0.2, 0.3}) t.add({1, Seconds(w), kNet, {}});
  t.run();
  EXPECT_EQ(t.end(compute).value, 0.7);
}

}  // namespace
}  // namespace topotune::tune
