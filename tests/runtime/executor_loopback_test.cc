// The executor on real bytes: every test schedule, many rank counts, sizes that do not divide,
// all dtypes, with exact checks against a reference computed from the inputs (see
// loopback_runner.h for why the values make every sum exact).

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "algorithms/schedule/interpreter.h"
#include "runtime/executor.h"
#include "runtime/local_plan.h"
#include "tests/runtime/loopback_runner.h"
#include "tests/runtime/test_schedules.h"

namespace topotune::rt::testing {
namespace {

using sched::Collective;
using sched::DataType;

struct Maker {
  std::string name;
  Collective collective;
  std::function<sched::Schedule(const sched::CollectiveSpec&)> make;
};

std::vector<Maker> makers() {
  return {
      {"ring", Collective::Allreduce, [](const auto& s) { return ring_allreduce(s); }},
      {"ring3chunks", Collective::Allreduce, [](const auto& s) { return ring_allreduce(s, 3); }},
      {"ps", Collective::Allreduce, [](const auto& s) { return ps_allreduce(s); }},
      {"sharded_ps", Collective::Allreduce, [](const auto& s) { return sharded_ps_allreduce(s); }},
      {"tree", Collective::Allreduce, [](const auto& s) { return tree_allreduce(s); }},
      {"hierarchical", Collective::Allreduce,
       [](const auto& s) { return hierarchical_allreduce(s, s.ranks % 2 == 0 ? 2 : 1); }},
      {"broadcast_chain", Collective::Broadcast, [](const auto& s) { return broadcast_chain(s); }},
      {"allgather", Collective::Allgather, [](const auto& s) { return ring_allgather(s); }},
  };
}

sched::CollectiveSpec spec_of(Collective c, int n, std::int64_t elements, DataType t) {
  sched::CollectiveSpec spec;
  spec.collective = c;
  spec.ranks = n;
  spec.dtype = t;
  spec.bytes = Bytes(elements * sched::dtype_size(t));
  return spec;
}

TEST(ExecutorLoopback, EveryScheduleRankCountSizeAndDtypeIsExact) {
  const int kRanks[] = {1, 2, 3, 4, 5, 7, 8, 16};
  const std::int64_t kElements[] = {0, 1, 5, 1003};  // 1003 = prime: no rank count divides it
  const DataType kTypes[] = {DataType::F32, DataType::F16, DataType::BF16};
  int runs = 0;
  for (const Maker& m : makers()) {
    for (int n : kRanks) {
      for (std::int64_t e : kElements) {
        for (DataType t : kTypes) {
          const sched::CollectiveSpec spec = spec_of(m.collective, n, e, t);
          const sched::Schedule s = m.make(spec);
          auto bufs = initial_buffers(spec);
          const std::string where = m.name + " n=" + std::to_string(n) +
                                    " elements=" + std::to_string(e) + " " + sched::dtype_name(t);
          Expected<void> r = run_loopback(s, bufs);
          ASSERT_TRUE(r) << where << ": " << r.error().message;
          EXPECT_EQ(check_result(spec, bufs), "") << where;
          ++runs;
        }
      }
    }
  }
  EXPECT_EQ(runs, 8 * 8 * 4 * 3);
}

// Re-running one Executor (plan and scratch reused) with unsynchronised ranks, so that a fast
// rank's next run overlaps a slow rank's current one: tags must still match correctly.
TEST(ExecutorLoopback, RepeatedRunsWithoutBarriers) {
  for (const Maker& m : makers()) {
    const sched::CollectiveSpec spec = spec_of(m.collective, 5, 4099, DataType::F32);
    const sched::Schedule s = m.make(spec);
    auto bufs = initial_buffers(spec);
    Expected<void> r = run_loopback(s, bufs, /*runs=*/4);
    ASSERT_TRUE(r) << m.name << ": " << r.error().message;
    EXPECT_EQ(check_result(spec, bufs), "") << m.name;
  }
}

// A tag space of 3 values forces many transfers between one pair to share a tag: the executor
// must order them by id on both sides (executor.h, "Matching").
TEST(ExecutorLoopback, TinyTagSpaceStillMatchesCorrectly) {
  for (const Maker& m : makers()) {
    const sched::CollectiveSpec spec = spec_of(m.collective, 4, 1003, DataType::F32);
    const sched::Schedule s = m.make(spec);
    auto bufs = initial_buffers(spec);
    Expected<void> r = run_loopback(s, bufs, /*runs=*/2, /*max_tag=*/kReservedTags + 2);
    ASSERT_TRUE(r) << m.name << ": " << r.error().message;
    EXPECT_EQ(check_result(spec, bufs), "") << m.name;
  }
}

// broadcast_chain's sends depend on their own rank's receive only through a transfer of two
// other ranks: the plan must contain that projected dependency.
TEST(LocalPlan, ProjectsDependenciesThroughRemoteTransfers) {
  const sched::CollectiveSpec spec = spec_of(Collective::Broadcast, 4, 16, DataType::F32);
  const sched::Schedule s = broadcast_chain(spec);
  // Transfers: t0 = 0->1, x0 = 0->2 (dep t0), t1 = 1->2 (dep x0), x1 = 1->3 (dep t1), t2 = 2->3.
  Expected<LocalPlan> plan = make_local_plan(s, RankId(1), 1 << 20);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->ops.size(), 3u);  // t0 (recv), t1 (send), x1 (send)
  EXPECT_EQ(plan->ops[0].kind, LocalOpKind::Recv);
  EXPECT_EQ(plan->ops[1].kind, LocalOpKind::Send);
  EXPECT_EQ(plan->ops[1].id.value, 2);
  EXPECT_EQ(plan->ops[1].num_deps, 1u);  // x0 is remote; its dependency t0 is projected
  ASSERT_EQ(plan->dependents_of(0).size(), 1u);
  EXPECT_EQ(plan->dependents_of(0)[0], 1u);
}

TEST(LocalPlan, ServerEndpointsBelongToTheirExecutor) {
  const sched::CollectiveSpec spec = spec_of(Collective::Allreduce, 3, 30, DataType::F32);
  const sched::Schedule s = ps_allreduce(spec);  // server run by rank 0
  Expected<LocalPlan> p0 = make_local_plan(s, RankId(0), 1 << 20);
  Expected<LocalPlan> p1 = make_local_plan(s, RankId(1), 1 << 20);
  ASSERT_TRUE(p0 && p1);
  EXPECT_EQ(p0->num_server_buffers, 1);
  EXPECT_EQ(p1->num_server_buffers, 0);
  // Rank 0: its push and pull are local (no message); it receives 2 pushes and sends 2 pulls.
  int local = 0;
  for (const LocalOp& op : p0->ops) local += op.kind == LocalOpKind::Local;
  EXPECT_EQ(local, 2);
  EXPECT_EQ(p0->ops.size(), 6u);
  EXPECT_EQ(p1->ops.size(), 2u);
  EXPECT_EQ(p1->ops[0].peer.value, 0);
}

// The hand-built test schedules are themselves proved by the symbolic interpreter, so the
// executor is tested on valid schedules only.
TEST(TestSchedules, PassTheInterpreter) {
  for (const Maker& m : makers()) {
    for (int n : {1, 2, 3, 4, 5, 8}) {
      const sched::Schedule s = m.make(spec_of(m.collective, n, 1003, DataType::F32));
      Expected<void> v = sched::verify(s);
      EXPECT_TRUE(v) << m.name << " n=" << n << ": " << (v ? "" : v.error().message);
    }
  }
}

// Every allreduce algorithm of the registry (with options that change the schedule's shape),
// proved by the interpreter, then run with real bytes and checked exactly.
TEST(ExecutorLoopback, EveryRegistryAlgorithmIsExact) {
  struct Variant {
    std::string name;
    algo::AlgorithmOptions options;
  };
  std::vector<Variant> variants;
  for (const std::string& name : algo::algorithm_names()) {
    if (name.find("_ring") != std::string::npos) continue;  // not allreduce algorithms
    variants.push_back({name, {}});
  }
  algo::AlgorithmOptions piped;
  piped.channels = 2;
  piped.chunks = 3;
  variants.push_back({"ring", piped});
  variants.push_back({"tree", piped});
  algo::AlgorithmOptions cpu;
  cpu.ps_placement = algo::PsPlacement::Cpu;
  variants.push_back({"ps", cpu});
  variants.push_back({"hierarchical:ps", cpu});
  const std::pair<int, int> kLayouts[] = {{1, 1}, {2, 1}, {3, 1}, {1, 4},  {2, 2}, {5, 1},
                                          {7, 1}, {2, 4}, {4, 2}, {16, 1}, {3, 3}};
  int runs = 0;
  for (const Variant& v : variants) {
    auto a = algo::make_algorithm(v.name, v.options);
    ASSERT_TRUE(a) << v.name;
    for (auto [hosts, per_host] : kLayouts) {
      const int n = hosts * per_host;
      auto layout = algo::flat_layout(n, per_host);
      ASSERT_TRUE(layout);
      for (std::int64_t e : {0, 1, 1003}) {
        for (DataType t : {DataType::F32, DataType::F16, DataType::BF16}) {
          const sched::CollectiveSpec spec = spec_of(Collective::Allreduce, n, e, t);
          const std::string where = (*a)->name() + " " + std::to_string(hosts) + "x" +
                                    std::to_string(per_host) + " elements=" + std::to_string(e) +
                                    " " + sched::dtype_name(t);
          auto s = (*a)->generate(spec, *layout);
          if (!s && s.error().code == Errc::Unsupported) continue;
          ASSERT_TRUE(s) << where << ": " << s.error().message;
          Expected<void> proved = sched::verify(*s);
          ASSERT_TRUE(proved) << where << ": " << proved.error().message;
          auto bufs = initial_buffers(spec);
          Expected<void> r = run_loopback(*s, bufs);
          ASSERT_TRUE(r) << where << ": " << r.error().message;
          EXPECT_EQ(check_result(spec, bufs), "") << where;
          ++runs;
        }
      }
    }
  }
  EXPECT_GT(runs, 500);
}

TEST(ExecutorLoopback, WrongBufferSizeIsAnError) {
  const sched::CollectiveSpec spec = spec_of(Collective::Allreduce, 2, 8, DataType::F32);
  const sched::Schedule s = ring_allreduce(spec);
  std::vector<std::vector<std::byte>> bufs(2, std::vector<std::byte>(4));
  Expected<void> r = run_loopback(s, bufs);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("buffer of 4 bytes"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace topotune::rt::testing
