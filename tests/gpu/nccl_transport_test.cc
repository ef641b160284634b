// NcclTransport on a one-rank communicator (all one GPU allows: NCCL refuses two ranks of one
// communicator on the same device). Rank 0 sends to and receives from itself inside a batch,
// which exercises groups, events, test/wait_all and the error paths; the ncclAllReduce
// baseline is checked for every element type.

#include "runtime/nccl/nccl_transport.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "runtime/nccl/device_buffer.h"
#include "runtime/nccl/nccl_allreduce.h"
#include "tests/gpu/gpu_test_env.h"

namespace topotune::rt {
namespace {

std::unique_ptr<NcclTransport> single() {
  auto t = NcclTransport::create_single(0, {});
  EXPECT_TRUE(t.has_value()) << t.error().message;
  return t ? std::move(*t) : nullptr;
}

std::vector<std::byte> bytes_pattern(std::size_t n, int seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 31 + seed) & 0xff);
  return v;
}

TEST(NcclTransport, OneRankCommunicatorDescribesItself) {
  TT_REQUIRE_GPU();
  auto t = single();
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rank(), RankId(0));
  EXPECT_EQ(t->world_size(), 1);
  EXPECT_EQ(t->memory_kind(), MemoryKind::Device);
  EXPECT_TRUE(t->barrier());
}

TEST(NcclTransport, SelfSendReceiveInOneBatchMovesTheBytes) {
  TT_REQUIRE_GPU();
  auto t = single();
  ASSERT_TRUE(t);
  // Odd sizes and a zero-byte message, several messages per batch (matched in order).
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4097}, std::size_t{3} << 20}) {
    const std::vector<std::byte> a = bytes_pattern(n, 1);
    const std::vector<std::byte> b = bytes_pattern(n, 2);
    auto src = DeviceBuffer::allocate(2 * n);
    auto dst = DeviceBuffer::allocate(2 * n);
    ASSERT_TRUE(src && dst);
    BufferView s0{src->data(), n}, s1{src->data() + n, n};
    BufferView d0{dst->data(), n}, d1{dst->data() + n, n};
    ASSERT_TRUE(copy_to_device(s0, a, t->stream()));
    ASSERT_TRUE(copy_to_device(s1, b, t->stream()));
    std::vector<Request> reqs;
    t->begin_batch();
    for (auto [sv, dv] : {std::pair{s0, d0}, std::pair{s1, d1}}) {
      auto sr = t->isend(RankId(0), sv, 0);
      auto rr = t->irecv(RankId(0), dv, 0);
      ASSERT_TRUE(sr && rr);
      reqs.push_back(*sr);
      reqs.push_back(*rr);
    }
    ASSERT_TRUE(t->end_batch());
    Expected<void> w = t->wait_all(reqs);
    ASSERT_TRUE(w.has_value()) << w.error().message;
    for (const Request& r : reqs) EXPECT_FALSE(r.valid());  // waited requests are spent
    std::vector<std::byte> got(n);
    ASSERT_TRUE(copy_to_host(got, d0, t->stream()));
    EXPECT_EQ(got, a) << n << " bytes, first message";
    ASSERT_TRUE(copy_to_host(got, d1, t->stream()));
    EXPECT_EQ(got, b) << n << " bytes, second message";
  }
}

TEST(NcclTransport, TestPollsUntilComplete) {
  TT_REQUIRE_GPU();
  auto t = single();
  ASSERT_TRUE(t);
  auto buf = DeviceBuffer::allocate(2 << 20);
  ASSERT_TRUE(buf);
  BufferView half0{buf->data(), 1 << 20}, half1{buf->data() + (1 << 20), 1 << 20};
  t->begin_batch();
  auto sr = t->isend(RankId(0), half0, 0);
  auto rr = t->irecv(RankId(0), half1, 0);
  ASSERT_TRUE(sr && rr);
  // Before end_batch the group is not issued: testing then is a caller bug, reported.
  EXPECT_EQ(t->test(*rr).error().code, Errc::Internal);
  ASSERT_TRUE(t->end_batch());
  for (Request* r : {&*sr, &*rr}) {
    bool done = false;
    for (int spins = 0; !done && spins < 100000000; ++spins) {
      auto d = t->test(*r);
      ASSERT_TRUE(d.has_value()) << d.error().message;
      done = *d;
    }
    EXPECT_TRUE(done);
    EXPECT_FALSE(r->valid());
  }
}

TEST(NcclTransport, ReportsMisuseAsErrors) {
  TT_REQUIRE_GPU();
  auto t = single();
  ASSERT_TRUE(t);
  auto buf = DeviceBuffer::allocate(64);
  ASSERT_TRUE(buf);
  EXPECT_EQ(t->isend(RankId(1), buf->view(), 0).error().code, Errc::InvalidArgument);
  EXPECT_EQ(t->irecv(RankId(-1), buf->view(), 0).error().code, Errc::InvalidArgument);
  EXPECT_EQ(t->end_batch().error().code, Errc::Internal);
  t->begin_batch();
  EXPECT_EQ(t->barrier().error().code, Errc::Internal);
  EXPECT_TRUE(t->end_batch());  // an empty batch is fine
}

TEST(NcclTransport, VersionStringMatchesTheHeader) {
  // The library loaded at run time must be the major version compiled against.
  const std::string v = nccl_version_string();
  EXPECT_EQ(v.rfind(std::to_string(NCCL_MAJOR) + ".", 0), 0u) << v;
}

TEST(NcclAllreduceBaseline, VerifiesForEveryElementTypeInAndOutOfPlace) {
  TT_REQUIRE_GPU();
  auto t = single();
  ASSERT_TRUE(t);
  for (sched::DataType dtype :
       {sched::DataType::F32, sched::DataType::F16, sched::DataType::BF16}) {
    for (bool in_place : {true, false}) {
      sched::CollectiveSpec spec;
      spec.dtype = dtype;
      spec.bytes = Bytes(sched::dtype_size(dtype) * 12345);
      spec.in_place = in_place;
      auto r = run_nccl_allreduce_baseline(*t, spec, {.warmup = 1, .iterations = 3});
      ASSERT_TRUE(r.has_value()) << r.error().message;
      EXPECT_TRUE(r->verified);
      EXPECT_EQ(r->wrong, 0) << sched::dtype_name(dtype) << (in_place ? " in place" : "");
      ASSERT_EQ(r->times.size(), 3u);
      for (Seconds s : r->times) EXPECT_GT(s.value, 0.0);
    }
  }
}

TEST(NcclAllreduceBaseline, RejectsOtherCollectives) {
  TT_REQUIRE_GPU();
  auto t = single();
  ASSERT_TRUE(t);
  sched::CollectiveSpec spec;
  spec.collective = sched::Collective::Allgather;
  spec.bytes = Bytes(1024);
  EXPECT_EQ(run_nccl_allreduce_baseline(*t, spec, {}).error().code, Errc::Unsupported);
}

}  // namespace
}  // namespace topotune::rt
