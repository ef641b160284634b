// MaxMinSolver cases solved by hand (SimGrid maxmin_test style): each expectation is derived in
// the comment above it by progressive filling. Plus two property tests on random systems: the
// answer is max-min fair, and the incremental solve equals a solve from scratch.

#include "simulator/max_min_solver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

namespace topotune::sim {
namespace {

std::vector<int> sorted(std::span<const int> s) {
  std::vector<int> v(s.begin(), s.end());
  std::sort(v.begin(), v.end());
  return v;
}

TEST(MaxMinSolver, OneFlowGetsTheWholeLink) {
  // One variable on one constraint of capacity 10: nothing to share, x = 10.
  MaxMinSolver s;
  const int link = s.add_constraint(10);
  const int f = s.add_variable(std::vector<int>{link});
  s.solve();
  EXPECT_DOUBLE_EQ(s.value(f), 10);
}

TEST(MaxMinSolver, TwoFlowsShareOneLinkEqually) {
  // x1 + x2 <= 10, equal weights: both rise to 10/2 = 5 together and saturate the link.
  MaxMinSolver s;
  const int link = s.add_constraint(10);
  const int a = s.add_variable(std::vector<int>{link});
  const int b = s.add_variable(std::vector<int>{link});
  EXPECT_EQ(sorted(s.solve()), (std::vector<int>{a, b}));
  EXPECT_DOUBLE_EQ(s.value(a), 5);
  EXPECT_DOUBLE_EQ(s.value(b), 5);
}

TEST(MaxMinSolver, FlowCrossingTwoLinksIsLimitedByTheTighterOne) {
  // A (cap 10) carries flows 1, 2; B (cap 4) carries flows 2, 3.
  // Shares: A 10/2 = 5, B 4/2 = 2 -> B saturates first: x2 = x3 = 2.
  // A keeps 10 - 2 = 8 for flow 1 alone -> x1 = 8.
  MaxMinSolver s;
  const int a = s.add_constraint(10);
  const int b = s.add_constraint(4);
  const int f1 = s.add_variable(std::vector<int>{a});
  const int f2 = s.add_variable(std::vector<int>{a, b});
  const int f3 = s.add_variable(std::vector<int>{b});
  s.solve();
  EXPECT_DOUBLE_EQ(s.value(f1), 8);
  EXPECT_DOUBLE_EQ(s.value(f2), 2);
  EXPECT_DOUBLE_EQ(s.value(f3), 2);
}

TEST(MaxMinSolver, ParkingLot) {
  // L1 (cap 1) carries f0, f1; L2 (cap 2) carries f0, f2.
  // Shares: L1 1/2 = 0.5, L2 2/2 = 1 -> L1 first: x0 = x1 = 0.5.
  // L2 keeps 2 - 0.5 = 1.5 for f2 -> x2 = 1.5.
  MaxMinSolver s;
  const int l1 = s.add_constraint(1);
  const int l2 = s.add_constraint(2);
  const int f0 = s.add_variable(std::vector<int>{l1, l2});
  const int f1 = s.add_variable(std::vector<int>{l1});
  const int f2 = s.add_variable(std::vector<int>{l2});
  s.solve();
  EXPECT_DOUBLE_EQ(s.value(f0), 0.5);
  EXPECT_DOUBLE_EQ(s.value(f1), 0.5);
  EXPECT_DOUBLE_EQ(s.value(f2), 1.5);
}

TEST(MaxMinSolver, BoundedVariableLeavesTheRestToOthers) {
  // Link cap 10, flow a bounded at 2, flow b unbounded. Filling: both rise; a hits its bound 2
  // before the link share 5 -> a = 2; b alone gets 10 - 2 = 8.
  MaxMinSolver s;
  const int link = s.add_constraint(10);
  const int a = s.add_variable(std::vector<int>{link}, 2);
  const int b = s.add_variable(std::vector<int>{link});
  s.solve();
  EXPECT_DOUBLE_EQ(s.value(a), 2);
  EXPECT_DOUBLE_EQ(s.value(b), 8);
}

TEST(MaxMinSolver, LooseBoundDoesNotBind) {
  // Link cap 10, a bounded at 7: the link share 5 comes first, so a = b = 5.
  MaxMinSolver s;
  const int link = s.add_constraint(10);
  const int a = s.add_variable(std::vector<int>{link}, 7);
  const int b = s.add_variable(std::vector<int>{link});
  s.solve();
  EXPECT_DOUBLE_EQ(s.value(a), 5);
  EXPECT_DOUBLE_EQ(s.value(b), 5);
}

TEST(MaxMinSolver, FlowsLeavingReallocateToTheRest) {
  // Three flows on a link of 9: 3 each. Remove one: the two left get 9/2 = 4.5 each, and both
  // are reported changed. Remove another: the last gets 9.
  MaxMinSolver s;
  const int link = s.add_constraint(9);
  const int a = s.add_variable(std::vector<int>{link});
  const int b = s.add_variable(std::vector<int>{link});
  const int c = s.add_variable(std::vector<int>{link});
  s.solve();
  EXPECT_DOUBLE_EQ(s.value(a), 3);
  s.remove_variable(b);
  EXPECT_EQ(sorted(s.solve()), (std::vector<int>{a, c}));
  EXPECT_DOUBLE_EQ(s.value(a), 4.5);
  EXPECT_DOUBLE_EQ(s.value(c), 4.5);
  s.remove_variable(a);
  EXPECT_EQ(sorted(s.solve()), (std::vector<int>{c}));
  EXPECT_DOUBLE_EQ(s.value(c), 9);
  EXPECT_EQ(s.num_active_variables(), 1u);
}

TEST(MaxMinSolver, OnlyTheTouchedComponentIsResolved) {
  // Two independent links. Changing link 2's flows must not report link 1's flows as changed
  // (their share did not move), which is what keeps the simulator's events local.
  MaxMinSolver s;
  const int l1 = s.add_constraint(4);
  const int l2 = s.add_constraint(6);
  const int a = s.add_variable(std::vector<int>{l1});
  const int b = s.add_variable(std::vector<int>{l2});
  s.solve();
  const int c = s.add_variable(std::vector<int>{l2});
  // Only b (6 -> 3) and the new c (3) change; a stays 4.
  EXPECT_EQ(sorted(s.solve()), sorted(std::vector<int>{b, c}));
  EXPECT_DOUBLE_EQ(s.value(a), 4);
  EXPECT_DOUBLE_EQ(s.value(b), 3);
  EXPECT_DOUBLE_EQ(s.value(c), 3);
  // Nothing touched: nothing reported.
  EXPECT_TRUE(s.solve().empty());
}

TEST(MaxMinSolver, VariableWithoutConstraintsGetsItsBound) {
  MaxMinSolver s;
  const int free_flow = s.add_variable({});
  const int capped = s.add_variable({}, 3);
  EXPECT_EQ(sorted(s.solve()), sorted(std::vector<int>{free_flow, capped}));
  EXPECT_EQ(s.value(free_flow), MaxMinSolver::kUnbounded);
  EXPECT_DOUBLE_EQ(s.value(capped), 3);
}

TEST(MaxMinSolver, ZeroCapacityGivesZero) {
  MaxMinSolver s;
  const int dead = s.add_constraint(0);
  const int f = s.add_variable(std::vector<int>{dead});
  s.solve();
  EXPECT_EQ(s.value(f), 0);
}

TEST(MaxMinSolver, LongRoutesAndBusyLinks) {
  // A flow over 12 links (capacities 20, 19, ..., 9) and, on the last link (capacity 9), six
  // one-link flows: shares: last link 9/7, others 20..10 / 1 -> the last link saturates first:
  // all seven get 9/7. (Exercises storage beyond the inline sizes: 12 links, 7 users.)
  MaxMinSolver s;
  std::vector<int> route;
  for (int k = 0; k < 12; ++k) route.push_back(s.add_constraint(20 - k));
  const int longest = s.add_variable(route);
  std::vector<int> locals;
  for (int k = 0; k < 6; ++k) locals.push_back(s.add_variable(std::vector<int>{route.back()}));
  s.solve();
  EXPECT_DOUBLE_EQ(s.value(longest), 9.0 / 7);
  for (int v : locals) EXPECT_DOUBLE_EQ(s.value(v), 9.0 / 7);
  EXPECT_EQ(s.constraints_of(longest).size(), 12u);
  // The local flows leave: the long one is limited by its tightest link alone, 9.
  for (int v : locals) s.remove_variable(v);
  s.solve();
  EXPECT_DOUBLE_EQ(s.value(longest), 9);
  EXPECT_EQ(s.users(route.back()), 1u);
}

TEST(MaxMinSolver, IdsAreReusedAfterRemoval) {
  MaxMinSolver s;
  const int link = s.add_constraint(8);
  const int a = s.add_variable(std::vector<int>{link});
  s.remove_variable(a);
  const int b = s.add_variable(std::vector<int>{link});
  EXPECT_EQ(a, b);
  EXPECT_FALSE(s.solve().empty());
  EXPECT_DOUBLE_EQ(s.value(b), 8);
}

TEST(MaxMinSolver, JoiningAVariableAddedAloneBeforeTheSolve) {
  // f1 is added alone on A (cap 10) and would get 10; before the solve f2 joins A and also
  // uses B (cap 4). Shares: A 10/2 = 5, B 4/1 = 4 -> B saturates first: x2 = 4; A keeps
  // 10 - 4 = 6 for f1. Both are reported once, f1 first (it was added first).
  MaxMinSolver s;
  const int a = s.add_constraint(10);
  const int b = s.add_constraint(4);
  const int f1 = s.add_variable(std::vector<int>{a});
  const int f2 = s.add_variable(std::vector<int>{a, b});
  const std::span<const int> changed = s.solve();
  EXPECT_EQ(std::vector<int>(changed.begin(), changed.end()), (std::vector<int>{f1, f2}));
  EXPECT_DOUBLE_EQ(s.value(f1), 6);
  EXPECT_DOUBLE_EQ(s.value(f2), 4);
}

TEST(MaxMinSolver, LinkEmptiedAndReusedInOneBatch) {
  // Two flows share a link of 8 (4 each); both leave and a third arrives before the next solve:
  // it is alone on the link -> 8. The leavers are not reported; the newcomer is, once.
  MaxMinSolver s;
  const int link = s.add_constraint(8);
  const int a = s.add_variable(std::vector<int>{link});
  const int b = s.add_variable(std::vector<int>{link});
  s.solve();
  EXPECT_DOUBLE_EQ(s.value(a), 4);
  s.remove_variable(a);
  s.remove_variable(b);
  const int c = s.add_variable(std::vector<int>{link});
  const std::span<const int> changed = s.solve();
  EXPECT_EQ(std::vector<int>(changed.begin(), changed.end()), (std::vector<int>{c}));
  EXPECT_DOUBLE_EQ(s.value(c), 8);
  EXPECT_EQ(s.users(link), 1u);
}

// A random system: `constraints` capacities in [1, 10], variables using 1-3 of them, a third
// bounded.
struct RandomSystem {
  std::vector<double> capacity;
  std::vector<std::vector<int>> uses;
  std::vector<double> bound;
};

RandomSystem random_system(std::mt19937& rng, int constraints, int variables) {
  RandomSystem sys;
  std::uniform_real_distribution<double> cap(1, 10);
  std::uniform_int_distribution<int> pick(0, constraints - 1);
  std::uniform_int_distribution<int> count(1, 3);
  for (int c = 0; c < constraints; ++c) sys.capacity.push_back(cap(rng));
  for (int v = 0; v < variables; ++v) {
    std::vector<int> u;
    for (int k = count(rng); k > 0; --k) {
      const int c = pick(rng);
      if (std::find(u.begin(), u.end(), c) == u.end()) u.push_back(c);
    }
    sys.uses.push_back(u);
    sys.bound.push_back(v % 3 == 0 ? cap(rng) / 2 : MaxMinSolver::kUnbounded);
  }
  return sys;
}

TEST(MaxMinSolver, RandomSystemsAreFeasibleAndMaxMinFair) {
  // Max-min fairness characterisation: every variable is at its bound or crosses a saturated
  // constraint on which it has the largest share (its bottleneck). Plus feasibility.
  // Small systems (filled by linear scans) and large ones (components over 16 constraints,
  // filled with the heap).
  std::mt19937 rng(42);
  for (int trial = 0; trial < 240; ++trial) {
    const RandomSystem sys =
        trial % 6 == 5 ? random_system(rng, 40, 120) : random_system(rng, 6, 10);
    MaxMinSolver s;
    for (double c : sys.capacity) s.add_constraint(c);
    std::vector<int> ids;
    for (std::size_t v = 0; v < sys.uses.size(); ++v) {
      ids.push_back(s.add_variable(sys.uses[v], sys.bound[v]));
    }
    s.solve();
    std::vector<double> load(sys.capacity.size(), 0), top(sys.capacity.size(), 0);
    for (std::size_t v = 0; v < ids.size(); ++v) {
      for (int c : sys.uses[v]) {
        load[static_cast<std::size_t>(c)] += s.value(ids[v]);
        top[static_cast<std::size_t>(c)] =
            std::max(top[static_cast<std::size_t>(c)], s.value(ids[v]));
      }
    }
    for (std::size_t c = 0; c < load.size(); ++c) EXPECT_LE(load[c], sys.capacity[c] * (1 + 1e-12));
    for (std::size_t v = 0; v < ids.size(); ++v) {
      const double x = s.value(ids[v]);
      bool bottlenecked = std::abs(x - sys.bound[v]) <= 1e-9 * x;
      for (int c : sys.uses[v]) {
        const auto ci = static_cast<std::size_t>(c);
        bottlenecked = bottlenecked ||
                       (load[ci] >= sys.capacity[ci] * (1 - 1e-9) && x >= top[ci] * (1 - 1e-9));
      }
      EXPECT_TRUE(bottlenecked) << "trial " << trial << " variable " << v << " = " << x;
    }
  }
}

TEST(MaxMinSolver, IncrementalEqualsFromScratch) {
  // A random sequence of adds and removes with a solve after each; at every step the values
  // equal those of a fresh solver given only the currently active variables.
  std::mt19937 rng(7);
  for (const auto& [constraints, variables] : {std::pair{8, 40}, std::pair{40, 100}}) {
    const RandomSystem sys = random_system(rng, constraints, variables);
    MaxMinSolver inc;
    for (double c : sys.capacity) inc.add_constraint(c);
    std::map<std::size_t, int> active;  // system variable -> solver id (ordered: deterministic)
    std::uniform_int_distribution<std::size_t> pick(0, sys.uses.size() - 1);
    for (int step = 0; step < 300; ++step) {
      const std::size_t v = pick(rng);
      if (auto it = active.find(v); it != active.end()) {
        inc.remove_variable(it->second);
        active.erase(it);
      } else {
        active[v] = inc.add_variable(sys.uses[v], sys.bound[v]);
      }
      inc.solve();
      MaxMinSolver fresh;
      for (double c : sys.capacity) fresh.add_constraint(c);
      std::map<std::size_t, int> fresh_ids;
      for (const auto& [sv, id] : active)
        fresh_ids[sv] = fresh.add_variable(sys.uses[sv], sys.bound[sv]);
      fresh.solve();
      for (const auto& [sv, id] : active) {
        EXPECT_NEAR(inc.value(id), fresh.value(fresh_ids[sv]), 1e-9) << "step " << step;
      }
    }
  }
}

TEST(MaxMinSolver, BatchedChangesEqualFromScratch) {
  // As above, but 1-6 adds and removes between solves (a batch, as the simulator makes them):
  // variables added alone and joined before the solve, links emptied and refilled, ids reused
  // within a batch. Every variable added in the batch is reported exactly once.
  std::mt19937 rng(11);
  for (const auto& [constraints, variables] : {std::pair{6, 30}, std::pair{40, 100}}) {
    const RandomSystem sys = random_system(rng, constraints, variables);
    MaxMinSolver inc;
    for (double c : sys.capacity) inc.add_constraint(c);
    std::map<std::size_t, int> active;
    std::uniform_int_distribution<std::size_t> pick(0, sys.uses.size() - 1);
    std::uniform_int_distribution<int> batch(1, 6);
    for (int step = 0; step < 300; ++step) {
      std::vector<int> added;
      for (int k = batch(rng); k > 0; --k) {
        const std::size_t v = pick(rng);
        if (auto it = active.find(v); it != active.end()) {
          inc.remove_variable(it->second);
          std::erase(added, it->second);
          active.erase(it);
        } else {
          active[v] = inc.add_variable(sys.uses[v], sys.bound[v]);
          added.push_back(active[v]);
        }
      }
      const std::vector<int> changed = sorted(inc.solve());
      for (int id : added) {
        EXPECT_EQ(std::count(changed.begin(), changed.end(), id), 1) << "step " << step;
      }
      for (int id : changed) EXPECT_TRUE(inc.active(id)) << "step " << step;
      MaxMinSolver fresh;
      for (double c : sys.capacity) fresh.add_constraint(c);
      std::map<std::size_t, int> fresh_ids;
      for (const auto& [sv, id] : active)
        fresh_ids[sv] = fresh.add_variable(sys.uses[sv], sys.bound[sv]);
      fresh.solve();
      for (const auto& [sv, id] : active) {
        EXPECT_NEAR(inc.value(id), fresh.value(fresh_ids[sv]), 1e-9) << "step " << step;
      }
    }
  }
}

}  // namespace
}  // namespace topotune::sim
