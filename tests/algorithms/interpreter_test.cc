// The symbolic interpreter on hand-written schedules: correct ones pass, and each kind of bug
// (a missing transfer, a missing dependency, a contribution counted twice, a read of a buffer
// that holds nothing) is rejected with a message that says what is wrong.
#include "algorithms/schedule/interpreter.h"

#include <gtest/gtest.h>

#include <vector>

namespace topotune::sched {
namespace {

CollectiveSpec spec_of(Collective c, int ranks, std::int64_t bytes) {
  CollectiveSpec s;
  s.collective = c;
  s.ranks = ranks;
  s.bytes = Bytes(bytes);
  return s;
}

Slice sl(std::int64_t off, std::int64_t size) { return Slice{Bytes(off), Bytes(size)}; }
EndpointId ep(int e) { return EndpointId(e); }

// Allreduce on 2 ranks, 8 bytes (2 floats): each reduces one half into the other, then copies
// its reduced half back. Block 0 = [0,4) ends at rank 1, block 1 = [4,8) at rank 0.
ScheduleBuilder two_rank_allreduce(bool with_copy_deps, bool second_copy = true) {
  ScheduleBuilder b(spec_of(Collective::Allreduce, 2, 8), "hand");
  const TransferId r0 = b.add(ep(0), ep(1), sl(0, 4), true);
  const TransferId r1 = b.add(ep(1), ep(0), sl(4, 4), true);
  const std::vector<TransferId> d1 = {r0, r1};
  b.add(ep(1), ep(0), sl(0, 4), false,
        with_copy_deps ? std::span<const TransferId>(d1) : std::span<const TransferId>{});
  if (second_copy) b.add(ep(0), ep(1), sl(4, 4), false, d1);
  return b;
}

TEST(Interpreter, AcceptsHandWrittenAllreduce) {
  auto s = two_rank_allreduce(true).build();
  ASSERT_TRUE(s);
  EXPECT_TRUE(verify(*s)) << verify(*s).error().message;
}

TEST(Interpreter, RejectsMissingTransfer) {
  auto s = two_rank_allreduce(true, /*second_copy=*/false).build();
  ASSERT_TRUE(s);
  const auto r = verify(*s);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::InvalidSchedule);
  // Rank 1's second half only ever held its own input.
  EXPECT_NE(r.error().message.find("rank 1 bytes [4, 8) holds {1}"), std::string::npos)
      << r.error().message;
}

TEST(Interpreter, RejectsMissingDependencyAsRace) {
  // The copy back into rank 0's [0,4) does not wait for the reduce that produced it at rank 1:
  // rank 1 may send its partial sum, or overwrite while rank 0 is still reading.
  auto s = two_rank_allreduce(false).build();
  ASSERT_TRUE(s);
  const auto r = verify(*s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("race"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("transfer 2"), std::string::npos) << r.error().message;
}

TEST(Interpreter, RejectsWrongDependency) {
  // Same shape, but the copy depends on the wrong transfer (r1 instead of r0).
  ScheduleBuilder b(spec_of(Collective::Allreduce, 2, 8), "hand");
  const TransferId r0 = b.add(ep(0), ep(1), sl(0, 4), true);
  const TransferId r1 = b.add(ep(1), ep(0), sl(4, 4), true);
  b.add(ep(1), ep(0), sl(0, 4), false, r1);
  const std::vector<TransferId> d = {r0, r1};
  b.add(ep(0), ep(1), sl(4, 4), false, d);
  auto s = std::move(b).build();
  ASSERT_TRUE(s);
  const auto r = verify(*s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("race: transfer 0"), std::string::npos) << r.error().message;
}

TEST(Interpreter, RejectsDoubleCountedReduce) {
  ScheduleBuilder b(spec_of(Collective::Allreduce, 2, 8), "hand");
  const TransferId r0 = b.add(ep(0), ep(1), sl(0, 8), true);
  b.add(ep(0), ep(1), sl(0, 8), true, r0);  // rank 0's input a second time
  auto s = std::move(b).build();
  ASSERT_TRUE(s);
  const auto r = verify(*s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("counted twice"), std::string::npos) << r.error().message;
}

TEST(Interpreter, RejectsReadOfEmptyBuffer) {
  // Allgather: rank 1 forwards block 0 before it received it.
  ScheduleBuilder b(spec_of(Collective::Allgather, 3, 12), "hand");
  b.add(ep(1), ep(2), sl(0, 4), false);
  auto s = std::move(b).build();
  ASSERT_TRUE(s);
  const auto r = verify(*s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("hold no data"), std::string::npos) << r.error().message;
}

TEST(Interpreter, ConcurrentReducesIntoOneServerAreAllowed) {
  // Two ranks push into an empty CPU server at once, then it sends the sum back to both.
  ScheduleBuilder b(spec_of(Collective::Allreduce, 2, 8), "hand");
  const EndpointId cpu = b.add_host_cpu(0, RankId(0));
  const TransferId p0 = b.add(ep(0), cpu, sl(0, 8), true);
  const TransferId p1 = b.add(ep(1), cpu, sl(0, 8), true);
  const std::vector<TransferId> both = {p0, p1};
  b.add(cpu, ep(0), sl(0, 8), false, both);
  b.add(cpu, ep(1), sl(0, 8), false, both);
  auto s = std::move(b).build();
  ASSERT_TRUE(s);
  EXPECT_TRUE(verify(*s)) << verify(*s).error().message;
}

TEST(Interpreter, PullBeforeAllPushesIsARace) {
  ScheduleBuilder b(spec_of(Collective::Allreduce, 2, 8), "hand");
  const EndpointId cpu = b.add_host_cpu(0, RankId(0));
  const TransferId p0 = b.add(ep(0), cpu, sl(0, 8), true);
  const TransferId p1 = b.add(ep(1), cpu, sl(0, 8), true);
  const std::vector<TransferId> both = {p0, p1};
  b.add(cpu, ep(0), sl(0, 8), false, p0);  // waits for one push only
  b.add(cpu, ep(1), sl(0, 8), false, both);
  auto s = std::move(b).build();
  ASSERT_TRUE(s);
  const auto r = verify(*s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("race: transfer 1"), std::string::npos) << r.error().message;
}

TEST(Interpreter, TransitiveDependencyIsEnough) {
  // Chain 0 -> 1 -> 2 -> 3 broadcast, then rank 0 overwrites rank 1 again. That write must
  // follow rank 1's read (transfer 1); it depends only on transfer 2, which depends on 1.
  ScheduleBuilder b(spec_of(Collective::Broadcast, 4, 4), "hand");
  const TransferId a = b.add(ep(0), ep(1), sl(0, 4), false);
  const TransferId c = b.add(ep(1), ep(2), sl(0, 4), false, a);
  const TransferId e = b.add(ep(2), ep(3), sl(0, 4), false, c);
  b.add(ep(0), ep(1), sl(0, 4), false, e);
  auto s = std::move(b).build();
  ASSERT_TRUE(s);
  EXPECT_TRUE(verify(*s)) << verify(*s).error().message;
}

TEST(Interpreter, BroadcastAndReduceScatterEndStates) {
  ScheduleBuilder b(spec_of(Collective::Broadcast, 2, 4), "hand");
  auto empty = std::move(b).build();
  ASSERT_TRUE(empty);
  EXPECT_FALSE(verify(*empty));  // rank 1 never receives the root's data
  // Reduce-scatter on 2 ranks: block 0 = [0,4) must end summed at rank 0.
  ScheduleBuilder rs(spec_of(Collective::ReduceScatter, 2, 8), "hand");
  rs.add(ep(1), ep(0), sl(0, 4), true);
  rs.add(ep(0), ep(1), sl(4, 4), true);
  auto ok = std::move(rs).build();
  ASSERT_TRUE(ok);
  EXPECT_TRUE(verify(*ok)) << verify(*ok).error().message;
}

TEST(Interpreter, ZeroBytesNeedsNothing) {
  ScheduleBuilder b(spec_of(Collective::Allreduce, 4, 0), "hand");
  auto s = std::move(b).build();
  ASSERT_TRUE(s);
  EXPECT_TRUE(verify(*s));
}

}  // namespace
}  // namespace topotune::sched
