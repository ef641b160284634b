#include "runtime/loopback_transport.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace topotune::rt {
namespace {

TEST(LoopbackTransport, MatchesInPostingOrderPerTag) {
  LoopbackWorld world(2);
  Transport& a = world.transport(RankId(0));
  Transport& b = world.transport(RankId(1));
  int x = 1, y = 2, z = 3;
  int rx = 0, ry = 0, rz = 0;
  auto s1 = a.isend(RankId(1), ConstBufferView(reinterpret_cast<std::byte*>(&x), 4), 7);
  auto s2 = a.isend(RankId(1), ConstBufferView(reinterpret_cast<std::byte*>(&y), 4), 7);
  auto s3 = a.isend(RankId(1), ConstBufferView(reinterpret_cast<std::byte*>(&z), 4), 8);
  ASSERT_TRUE(s1 && s2 && s3);
  auto r3 = b.irecv(RankId(0), BufferView{reinterpret_cast<std::byte*>(&rz), 4}, 8);
  auto r1 = b.irecv(RankId(0), BufferView{reinterpret_cast<std::byte*>(&rx), 4}, 7);
  auto r2 = b.irecv(RankId(0), BufferView{reinterpret_cast<std::byte*>(&ry), 4}, 7);
  ASSERT_TRUE(r1 && r2 && r3);
  std::vector<Request> recvs = {*r1, *r2, *r3};
  ASSERT_TRUE(b.wait_all(recvs));
  EXPECT_EQ(rx, 1);  // first receive of tag 7 gets the first send of tag 7
  EXPECT_EQ(ry, 2);
  EXPECT_EQ(rz, 3);
  std::vector<Request> sends = {*s1, *s2, *s3};
  ASSERT_TRUE(a.wait_all(sends));
}

TEST(LoopbackTransport, SizeMismatchFailsBothSides) {
  LoopbackWorld world(2);
  std::vector<std::byte> small(4), big(8);
  auto s = world.transport(RankId(0)).isend(RankId(1), ConstBufferView(big.data(), 8), 0);
  auto r = world.transport(RankId(1)).irecv(RankId(0), BufferView{small.data(), 4}, 0);
  ASSERT_TRUE(s && r);
  Request rq = *r;
  Expected<bool> done = world.transport(RankId(1)).test(rq);
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().message.find("size mismatch"), std::string::npos);
}

TEST(LoopbackTransport, AbortUnblocksAWaitingReceiver) {
  LoopbackWorld world(2);
  std::vector<std::byte> buf(4);
  std::string error;
  std::thread waiter([&] {
    auto r = world.transport(RankId(1)).irecv(RankId(0), BufferView{buf.data(), 4}, 0);
    std::vector<Request> rs = {*r};
    Expected<void> w = world.transport(RankId(1)).wait_all(rs);
    if (!w) error = w.error().message;
  });
  world.abort("rank 0 died");
  waiter.join();
  EXPECT_NE(error.find("rank 0 died"), std::string::npos) << error;
}

TEST(LoopbackTransport, NothingIsDeliveredAfterAnAbort) {
  // A rank that gave up may free the buffer of a receive it posted: a send posted after the
  // abort must not reach it (a use after free under the measure loop's stall test).
  LoopbackWorld world(2);
  std::vector<std::byte> buf(4, std::byte{7});
  const std::vector<std::byte> data(4, std::byte{1});
  auto r = world.transport(RankId(1)).irecv(RankId(0), BufferView{buf.data(), 4}, 0);
  ASSERT_TRUE(r);
  world.abort("rank 1 gave up");
  auto s = world.transport(RankId(0)).isend(RankId(1), ConstBufferView{data.data(), 4}, 0);
  ASSERT_TRUE(s);
  EXPECT_EQ(buf[0], std::byte{7});  // untouched
  std::vector<Request> sends = {*s}, recvs = {*r};
  EXPECT_FALSE(world.transport(RankId(0)).wait_all(sends));
  EXPECT_FALSE(world.transport(RankId(1)).wait_all(recvs));
}

TEST(LoopbackTransport, BarrierReleasesAllRanks) {
  LoopbackWorld world(4);
  std::vector<std::thread> ts;
  std::atomic<int> passed{0};
  for (int r = 0; r < 4; ++r) {
    ts.emplace_back([&, r] {
      for (int k = 0; k < 3; ++k) ASSERT_TRUE(world.transport(RankId(r)).barrier());
      ++passed;
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(passed.load(), 4);
}

}  // namespace
}  // namespace topotune::rt
