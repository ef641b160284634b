// The measure loop over loopback threads: every point in order with rows on rank 0 only, bad
// input returned on every rank without ending the job, a failing rank's error fatal, and a
// stalled rank caught by its peers' watchdogs (the stall injected through the Harness).

#include "runtime/measure_loop.h"

#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <thread>

#include "runtime/loopback_transport.h"
#include "runtime/measure_harness.h"
#include "runtime/schedule_candidate.h"
#include "tests/runtime/test_schedules.h"

namespace topotune::rt {
namespace {

/// What one rank's loop returned and told its hooks.
struct RankLog {
  std::vector<MeasurementRow> rows;     // returned
  std::vector<std::string> reported;    // on_row: "algorithm bytes"
  std::optional<Error> error;           // returned
  std::vector<std::string> fatal;       // on_fatal messages
  std::vector<std::string> stalled_at;  // the watchdog's reports
};

/// Schedules from tests/runtime/test_schedules.h by name; anything else is bad input.
CandidateFactory loopback_factory(Transport& t) {
  return [&t](const std::string& algorithm, Bytes size) -> Expected<Candidate> {
    sched::CollectiveSpec spec;
    spec.ranks = t.world_size();
    spec.bytes = size;
    if (algorithm == "ring") return schedule_candidate("ring", testing::ring_allreduce(spec), t);
    if (algorithm == "tree") return schedule_candidate("tree", testing::tree_allreduce(spec), t);
    if (algorithm == "broken") {
      // Fails on rank 1 only, as a transport would.
      return Candidate{"broken", [&t](BufferView) -> Expected<void> {
                         if (t.rank().value == 1) return fail(Errc::Transport, "link down");
                         return {};
                       }};
    }
    return fail(Errc::InvalidArgument, "unknown algorithm '" + algorithm + "'");
  };
}

/// A harness that makes rank `stall_rank` stop at its first timed iteration until released:
/// the test's stand-in for a hung process.
class StallingHarness final : public Harness {
 public:
  StallingHarness(Harness& inner, int stall_rank, std::shared_future<void> release)
      : inner_(inner), stall_rank_(stall_rank), release_(std::move(release)) {}
  int rank() const override { return inner_.rank(); }
  int world_size() const override { return inner_.world_size(); }
  Expected<std::optional<MeasurementRow>> measure(const Candidate& c, std::int64_t bytes,
                                                  const ProgressFn& progress) override {
    return inner_.measure(c, bytes, [&](const HarnessProgress& p) {
      progress(p);
      if (rank() == stall_rank_ && p.iteration == 0) release_.wait();
    });
  }
  Expected<void> barrier() override { return inner_.barrier(); }

 private:
  Harness& inner_;
  int stall_rank_;
  std::shared_future<void> release_;
};

/// Runs the loop on `n` loopback ranks. A fatal error or a stall poisons the world (as
/// MPI_Abort ends a job) so that no rank waits forever. `stall_rank` >= 0 stalls that rank.
std::vector<RankLog> run_ranks(int n, const MeasurePoints& points, double timeout_s = 60,
                               int stall_rank = -1) {
  LoopbackWorld world(n);
  std::vector<RankLog> logs(static_cast<std::size_t>(n));
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::once_flag released_once;
  auto give_up = [&](const std::string& why) {
    world.abort(why);
    std::call_once(released_once, [&] { release.set_value(); });
  };
  std::mutex log_mutex;  // the watchdogs report from their own threads
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      RankLog& log = logs[static_cast<std::size_t>(r)];
      Transport& t = world.transport(RankId(r));
      MeasureHarness host(t, HarnessOptions{1, 2, sched::DataType::F32});
      StallingHarness harness(host, stall_rank, released);
      Watchdog watchdog(Seconds(timeout_s), [&](const std::string& where) {
        {
          std::lock_guard lock(log_mutex);
          log.stalled_at.push_back(where);
        }
        give_up("rank " + std::to_string(r) + " stalled");
      });
      MeasureLoopHooks hooks;
      hooks.on_row = [&](const MeasurementRow& row) {
        log.reported.push_back(row.algorithm + " " + std::to_string(row.bytes));
      };
      hooks.on_fatal = [&](const Error& e) {
        log.fatal.push_back(e.message);
        give_up(e.message);
      };
      auto rows = run_measure_loop(harness, watchdog, points, loopback_factory(t), hooks);
      if (rows) {
        log.rows = std::move(*rows);
      } else {
        log.error = rows.error();
      }
    });
  }
  for (auto& th : threads) th.join();
  return logs;
}

TEST(MeasureLoop, MeasuresEveryPointInOrderWithRowsOnRankZero) {
  const std::vector<RankLog> logs = run_ranks(3, {{"ring", "tree"}, {Bytes(4096), Bytes(12000)}});
  for (const RankLog& l : logs) {
    ASSERT_FALSE(l.error) << l.error->message;
    EXPECT_TRUE(l.fatal.empty());
    EXPECT_TRUE(l.stalled_at.empty());
  }
  const std::vector<std::string> want = {"ring 4096", "ring 12000", "tree 4096", "tree 12000"};
  EXPECT_EQ(logs[0].reported, want);
  ASSERT_EQ(logs[0].rows.size(), 4u);
  for (const MeasurementRow& row : logs[0].rows) {
    EXPECT_EQ(row.errors, 0) << row.algorithm;  // the executor really reduced
    EXPECT_EQ(row.iterations, 2);
  }
  for (int r = 1; r < 3; ++r) {
    EXPECT_TRUE(logs[static_cast<std::size_t>(r)].rows.empty());
    EXPECT_TRUE(logs[static_cast<std::size_t>(r)].reported.empty());
  }
}

TEST(MeasureLoop, BadInputIsReturnedOnEveryRankWithoutEndingTheJob) {
  const std::vector<RankLog> logs = run_ranks(2, {{"ring", "nope"}, {Bytes(4096)}});
  for (const RankLog& l : logs) {
    ASSERT_TRUE(l.error);
    EXPECT_EQ(l.error->code, Errc::InvalidArgument);
    EXPECT_EQ(l.error->message, "unknown algorithm 'nope'");
    EXPECT_TRUE(l.fatal.empty());
  }
  EXPECT_EQ(logs[0].reported, std::vector<std::string>{"ring 4096"});  // the point before
}

TEST(MeasureLoop, AFailureOfOneRankIsFatal) {
  const std::vector<RankLog> logs = run_ranks(3, {{"broken"}, {Bytes(4096)}});
  ASSERT_EQ(logs[1].fatal.size(), 1u);
  EXPECT_NE(logs[1].fatal[0].find("link down"), std::string::npos) << logs[1].fatal[0];
  ASSERT_TRUE(logs[1].error);
  EXPECT_EQ(logs[1].error->code, Errc::Transport);
  EXPECT_TRUE(logs[0].rows.empty());  // nothing reported as measured
}

TEST(MeasureLoop, AStalledRankTripsTheWatchdogs) {
  // Rank 2 stops at its first timed iteration; the others wait for it in the next barrier.
  // Their watchdogs report where they were last: that iteration. (1 s: far above an iteration
  // of 4 KiB even on a loaded machine, so no watchdog fires before the stall.)
  const std::vector<RankLog> logs = run_ranks(3, {{"ring"}, {Bytes(4096)}}, 1.0, 2);
  int reports = 0;
  for (const RankLog& l : logs) {
    for (const std::string& where : l.stalled_at) {
      EXPECT_EQ(where, progress_place("ring", Bytes(4096), 0));
      ++reports;
    }
    EXPECT_TRUE(l.error);  // the job ended: no rank finished
  }
  EXPECT_GE(reports, 1);
  EXPECT_TRUE(logs[0].rows.empty());
}

TEST(MeasureLoop, ProgressPlaceNamesAlgorithmSizeAndIteration) {
  EXPECT_EQ(progress_place("ring", Bytes(1 << 20), 3), "ring 1M iteration 3");
  EXPECT_EQ(progress_place("hierarchical(rhd)", Bytes(4096), -1),
            "hierarchical(rhd) 4K iteration -1");
}

}  // namespace
}  // namespace topotune::rt
