// The event loop's parts (simulator/event_queue.h, link_classes.h) and the property that makes
// link classes safe: a solver given one constraint per class computes exactly (bit for bit)
// what it computes with every link its own constraint.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "simulator/event_queue.h"
#include "simulator/link_classes.h"
#include "simulator/max_min_solver.h"
#include "simulator/route_cache.h"
#include "simulator/simulator.h"
#include "tests/simulator/fake_network.h"

namespace topotune::sim {
namespace {

using testing::FakeNetwork;

TEST(EventQueue, EarliestFirstTiesInCreationOrder) {
  // Drives the queue as the engine does: move to the next instant, pop its events, and while
  // doing so push later ones (often at equal times) and some at the current instant, which
  // must come out in the same instant after the ones already there. The reference is every
  // event sorted by (time, creation order).
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> delay(0, 12), count(0, 3);
  EventQueue q;
  std::vector<std::tuple<double, std::uint64_t>> pushed, popped;
  const auto push = [&](double time) {
    const std::uint64_t seq = q.push(time, 0, 0);
    pushed.emplace_back(time, seq);
  };
  for (int i = 0; i < 50; ++i) push(delay(rng) * 0.25);
  while (!q.empty()) {
    const double now = q.advance();
    Event e;
    while (q.pop_current(e)) {
      popped.emplace_back(now, e.seq);
      if (pushed.size() < 20000) {
        for (int k = count(rng); k > 0; --k) {
          const int d = delay(rng);
          push(d == 0 ? now : now + d * 0.25 + (d % 5 == 0 ? 1e-9 : 0));
        }
      }
    }
  }
  std::sort(pushed.begin(), pushed.end());
  EXPECT_EQ(popped, pushed);
}

TEST(EventQueue, AnInstantPushedAfterItsEventsWerePoppedComesBackAtTheSameTime) {
  // The engine's second pass at one time: events scheduled at the current instant after it was
  // drained (a flow whose rate makes it finish now) are the next instant, at the same time.
  EventQueue q;
  q.push(1.0, 1, 0);
  q.push(2.0, 2, 0);
  EXPECT_EQ(q.advance(), 1.0);
  Event e;
  ASSERT_TRUE(q.pop_current(e));
  EXPECT_EQ(e.id, 1u);
  EXPECT_FALSE(q.pop_current(e));
  q.push(1.0, 3, 0);
  EXPECT_EQ(q.advance(), 1.0);
  ASSERT_TRUE(q.pop_current(e));
  EXPECT_EQ(e.id, 3u);
  EXPECT_EQ(q.advance(), 2.0);
  ASSERT_TRUE(q.pop_current(e));
  EXPECT_EQ(e.id, 2u);
  EXPECT_TRUE(q.empty());
}

TEST(LinkClasses, LinksCrossedByTheSameRoutesAreOneClass) {
  // Routes 0 -> 1 over links 0, 1, 3 and 1 -> 2 over 1, 2, 3; link 4 unused. Links 1 and 3 are
  // crossed by both routes: one class, of capacity min(7, 5) = 5, represented by link 3. Class
  // ids follow the representatives: link 0 -> 0, link 2 -> 1, links {1, 3} -> 2.
  FakeNetwork net;
  for (int d = 0; d < 3; ++d) net.add_device();
  for (double bw : {10.0, 7.0, 6.0, 5.0, 1.0}) net.add_link(bw, 0);
  net.set_route(0, 1, {0, 1, 3});
  net.set_route(1, 2, {1, 2, 3});
  RouteCache routes(net);
  const std::uint32_t a = routes.find(NodeId(0), NodeId(1), 0);
  const std::uint32_t b = routes.find(NodeId(1), NodeId(2), 0);
  const LinkClasses classes = LinkClasses::of(routes, net);
  ASSERT_EQ(classes.num_classes(), 3u);
  EXPECT_EQ(classes.class_of(0), 0);
  EXPECT_EQ(classes.class_of(1), 2);
  EXPECT_EQ(classes.class_of(2), 1);
  EXPECT_EQ(classes.class_of(3), 2);
  EXPECT_EQ(classes.class_of(4), -1);
  EXPECT_EQ(classes.capacity(0), 10.0);
  EXPECT_EQ(classes.capacity(1), 6.0);
  EXPECT_EQ(classes.capacity(2), 5.0);
  const auto ra = classes.of_route(routes, a);
  const auto rb = classes.of_route(routes, b);
  EXPECT_EQ(std::vector<int>(ra.begin(), ra.end()), (std::vector<int>{0, 2}));
  EXPECT_EQ(std::vector<int>(rb.begin(), rb.end()), (std::vector<int>{2, 1}));
}

TEST(LinkClasses, ASolverWithOneConstraintPerClassComputesTheSameBits) {
  // Random systems in which some constraints have a twin used by exactly the same variables
  // (capacity larger, equal or smaller, so the class's smaller one binds and ties go to the
  // smaller id), changed in batches as the engine changes them. Solver `links` has every
  // constraint; solver `classes` one per class, of the smaller capacity, in the same order.
  // After every solve each value must be identical, not merely close. Capacities from a small
  // set make exact ties common; the larger systems are filled with the heap in `links` and,
  // having half the constraints, sometimes by scans in `classes`.
  std::mt19937 rng(3);
  const std::vector<double> caps = {1, 2, 3, 4, 6, 6, 10, 2.5};
  std::uniform_int_distribution<std::size_t> cap(0, caps.size() - 1);
  for (const auto& [num_classes, num_variables] : {std::pair{6, 30}, std::pair{30, 120}}) {
    MaxMinSolver links, classes;
    std::vector<std::vector<int>> members(static_cast<std::size_t>(num_classes));
    for (int k = 0; k < num_classes; ++k) {
      const double c = caps[cap(rng)];
      members[static_cast<std::size_t>(k)].push_back(links.add_constraint(c));
      double smallest = c;
      if (rng() % 2 == 0) {
        const double twin = caps[cap(rng)];
        members[static_cast<std::size_t>(k)].push_back(links.add_constraint(twin));
        smallest = std::min(smallest, twin);
      }
      classes.add_constraint(smallest);
    }
    std::vector<std::vector<int>> uses_links, uses_classes;
    std::vector<double> bound;
    std::uniform_int_distribution<int> pick(0, num_classes - 1), count(1, 3);
    for (int v = 0; v < num_variables; ++v) {
      std::vector<int> u, l;
      for (int n = count(rng); n > 0; --n) {
        const int k = pick(rng);
        if (std::find(u.begin(), u.end(), k) != u.end()) continue;
        u.push_back(k);
        for (int c : members[static_cast<std::size_t>(k)]) l.push_back(c);
      }
      uses_classes.push_back(u);
      uses_links.push_back(l);
      bound.push_back(v % 4 == 0 ? caps[cap(rng)] / 2 : MaxMinSolver::kUnbounded);
    }
    std::map<int, std::pair<int, int>> active;  // variable -> ids in (links, classes)
    std::uniform_int_distribution<int> var(0, num_variables - 1), batch(1, 6);
    for (int step = 0; step < 400; ++step) {
      for (int n = batch(rng); n > 0; --n) {
        const int v = var(rng);
        const auto sv = static_cast<std::size_t>(v);
        if (auto it = active.find(v); it != active.end()) {
          links.remove_variable(it->second.first);
          classes.remove_variable(it->second.second);
          active.erase(it);
        } else {
          active[v] = {links.add_variable(uses_links[sv], bound[sv]),
                       classes.add_variable(uses_classes[sv], bound[sv])};
        }
      }
      links.solve();
      classes.solve();
      for (const auto& [v, ids] : active) {
        EXPECT_EQ(links.value(ids.first), classes.value(ids.second))
            << "step " << step << " variable " << v;
      }
    }
  }
}

TEST(LinkClasses, EveryLinkOfAClassReportsItsOwnBusyTime) {
  // One route over links 0, 1, 2 (10, 4 and 8 bytes/s; one class of capacity 4), link 3
  // unused. 4 bytes at 4 bytes/s take 1 s: each link carried 4 bytes and was active 1 s; busy
  // is bytes over the link's own capacity: 0.4, 1, 0.5 s; the unused link has nothing.
  FakeNetwork net;
  net.add_device();
  net.add_device();
  for (double bw : {10.0, 4.0, 8.0, 1.0}) net.add_link(bw, 0);
  net.set_route(0, 1, {0, 1, 2});
  net.add_rank(0);
  net.add_rank(1);
  sched::CollectiveSpec spec;
  spec.ranks = 2;
  spec.bytes = Bytes(4);
  sched::ScheduleBuilder b(spec, "one");
  b.add(RankId(0), RankId(1), sched::Slice{Bytes(0), Bytes(4)}, false);
  const auto r = Simulator(net).run(std::move(b).build().value());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->makespan.value, 1.0);
  const double busy[] = {0.4, 1.0, 0.5};
  for (int l = 0; l < 3; ++l) {
    EXPECT_EQ(r->links[static_cast<std::size_t>(l)].bytes.value, 4) << "link " << l;
    EXPECT_EQ(r->links[static_cast<std::size_t>(l)].active.value, 1.0) << "link " << l;
    EXPECT_EQ(r->links[static_cast<std::size_t>(l)].busy.value, busy[l]) << "link " << l;
  }
  EXPECT_EQ(r->links[3].bytes.value, 0);
  EXPECT_EQ(r->links[3].active.value, 0.0);
  EXPECT_EQ(r->links[3].busy.value, 0.0);
}

}  // namespace
}  // namespace topotune::sim
