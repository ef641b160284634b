// The measurement harness over loopback threads: rows only on rank 0, statistics, and the
// verification counting wrong elements of a candidate that does not reduce.

#include "runtime/measure_harness.h"

#include <gtest/gtest.h>

#include <thread>

#include "runtime/executor.h"
#include "runtime/host_reducer.h"
#include "runtime/loopback_transport.h"
#include "tests/runtime/test_schedules.h"

namespace topotune::rt {
namespace {

TEST(Spread, NearestRankPercentilesAndMedian) {
  // 10 values 1..10: median (5+6)/2, p10 = v[1] = 2, p90 = v[10-1-1] = 9 (allred_bench's rule).
  const Spread s = spread_of({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.p10, 2);
  EXPECT_DOUBLE_EQ(s.p90, 9);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(spread_of({3, 1, 2}).median, 2);
}

TEST(InputValue, SumsStayExactForEachDtype) {
  // bf16 at 16 ranks: M = 256/16 = 16, so each sum <= 16*16 = 256 (exact in bf16).
  for (auto t : {sched::DataType::F32, sched::DataType::F16, sched::DataType::BF16}) {
    for (int n : {2, 16, 64}) {
      const int limit = t == sched::DataType::BF16  ? 256
                        : t == sched::DataType::F16 ? 2048
                                                    : 1 << 24;
      for (std::int64_t i = 0; i < 64; ++i) {
        int sum = 0;
        for (int r = 0; r < n; ++r) sum += input_value(r, i, n, t);
        EXPECT_LE(sum, limit) << n;
      }
    }
  }
}

struct RankResult {
  std::optional<MeasurementRow> row;
  std::string error;
};

// Runs `make(rank, transport)` -> Candidate on every rank of a loopback world at `bytes`.
template <class Make>
std::vector<RankResult> measure_all(int n, std::int64_t bytes, sched::DataType t, Make make,
                                    sched::Collective c = sched::Collective::Allreduce) {
  LoopbackWorld world(n);
  std::vector<RankResult> out(static_cast<std::size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      Transport& tr = world.transport(RankId(r));
      MeasureHarness h(tr, HarnessOptions{1, 3, t, c});
      auto state = make(r, tr);
      auto res = h.measure(state->candidate, bytes);
      if (!res) {
        out[static_cast<std::size_t>(r)].error = res.error().message;
        world.abort("failed");
        return;
      }
      out[static_cast<std::size_t>(r)].row = *res;
    });
  }
  for (auto& th : threads) th.join();
  return out;
}

struct ScheduleCandidate {
  sched::Schedule schedule;
  Executor executor;
  HostReducer reducer;
  Candidate candidate;
};

TEST(MeasureHarness, RingOverLoopbackIsCorrectAndReportedOnRankZeroOnly) {
  for (auto t : {sched::DataType::F32, sched::DataType::BF16}) {
    const int n = 4;
    const std::int64_t bytes = 4099 * sched::dtype_size(t);
    auto results = measure_all(n, bytes, t, [&](int r, Transport& tr) {
      sched::CollectiveSpec spec;
      spec.ranks = n;
      spec.dtype = t;
      spec.bytes = Bytes(bytes);
      auto st = std::make_unique<ScheduleCandidate>(
          ScheduleCandidate{testing::ring_allreduce(spec), Executor(), HostReducer(), {}});
      ScheduleCandidate* p = st.get();
      st->candidate = {"ring", [p, r, &tr](BufferView b) {
                         return p->executor.run(p->schedule, RankId(r), b, tr, p->reducer);
                       }};
      return st;
    });
    for (int r = 0; r < n; ++r) ASSERT_EQ(results[static_cast<std::size_t>(r)].error, "");
    ASSERT_TRUE(results[0].row.has_value());
    for (int r = 1; r < n; ++r) EXPECT_FALSE(results[static_cast<std::size_t>(r)].row.has_value());
    const MeasurementRow& row = *results[0].row;
    EXPECT_EQ(row.algorithm, "ring");
    EXPECT_EQ(row.bytes, bytes);
    EXPECT_EQ(row.count, 4099);
    EXPECT_EQ(row.errors, 0);
    EXPECT_EQ(row.iterations, 3);
    EXPECT_GT(row.time_us, 0);
    EXPECT_LE(*row.time_us_min, row.time_us);
    EXPECT_GE(*row.time_us_max, row.time_us);
    // busbw = algbw * 2(n-1)/n = algbw * 1.5 for 4 ranks.
    EXPECT_DOUBLE_EQ(row.busbw_GBps, row.algbw_GBps * 1.5);
    EXPECT_NEAR(row.algbw_GBps, static_cast<double>(bytes) / (row.time_us * 1e-6) / 1e9, 1e-9);
  }
}

struct NoopCandidate {
  Candidate candidate{"noop", [](BufferView) { return Expected<void>(); }};
};

TEST(MeasureHarness, ACandidateThatDoesNotReduceIsCountedWrong) {
  // Every element of every rank stays at its input, which is below the sum (all inputs >= 1):
  // wrong = elements * ranks * iterations = 100 * 3 * 3.
  auto results = measure_all(3, 400, sched::DataType::F32,
                             [](int, Transport&) { return std::make_unique<NoopCandidate>(); });
  ASSERT_TRUE(results[0].row.has_value());
  EXPECT_EQ(results[0].row->errors, 900);
}

// Allgather: each rank starts with its own block only, so a ring allgather is checked on
// every element; the bus bandwidth factor is (n-1)/n.
TEST(MeasureHarness, RingAllgatherIsCheckedOnEveryElement) {
  const int n = 3;
  const std::int64_t bytes = 4 * 1001;  // 1001 elements: blocks of 334, 334, 333
  auto results = measure_all(
      n, bytes, sched::DataType::F32,
      [&](int r, Transport& tr) {
        sched::CollectiveSpec spec;
        spec.collective = sched::Collective::Allgather;
        spec.ranks = n;
        spec.bytes = Bytes(bytes);
        auto st = std::make_unique<ScheduleCandidate>(
            ScheduleCandidate{testing::ring_allgather(spec), Executor(), HostReducer(), {}});
        ScheduleCandidate* p = st.get();
        st->candidate = {"ring", [p, r, &tr](BufferView b) {
                           return p->executor.run(p->schedule, RankId(r), b, tr, p->reducer);
                         }};
        return st;
      },
      sched::Collective::Allgather);
  ASSERT_TRUE(results[0].row.has_value()) << results[0].error;
  EXPECT_EQ(results[0].row->errors, 0);
  EXPECT_DOUBLE_EQ(results[0].row->busbw_GBps, results[0].row->algbw_GBps * 2.0 / 3.0);
}

// A candidate that does nothing: for reduce-scatter only the rank's own block is checked (100
// elements over 3 ranks, every one below its sum: 100 per iteration in all, x 3 iterations);
// for allgather every element outside the rank's own block is wrong (2 x 100 x 3).
TEST(MeasureHarness, ANoopIsWrongOnWhatEachCollectiveChecks) {
  const auto noop = [](int, Transport&) { return std::make_unique<NoopCandidate>(); };
  auto rs = measure_all(3, 400, sched::DataType::F32, noop, sched::Collective::ReduceScatter);
  ASSERT_TRUE(rs[0].row.has_value());
  EXPECT_EQ(rs[0].row->errors, 300);
  auto ag = measure_all(3, 400, sched::DataType::F32, noop, sched::Collective::Allgather);
  ASSERT_TRUE(ag[0].row.has_value());
  EXPECT_EQ(ag[0].row->errors, 600);
}

}  // namespace
}  // namespace topotune::rt
