// DeviceExecutor on one GPU (a one-rank communicator): a hand-made schedule whose result
// differs from its input, so that the local copies and sums through server copies in device
// memory, their slices and their order are checked; and every allreduce generator, proved by
// the interpreter, run three times in place (one rank: the result is the input; this catches
// crashes, stale server copies and corrupted bytes, not arithmetic).

#include "runtime/nccl/device_executor.h"

#include <gtest/gtest.h>

#include <vector>

#include "algorithms/schedule/schedule.h"
#include "runtime/nccl/device_buffer.h"
#include "runtime/nccl/element_codec.h"
#include "tests/gpu/gpu_test_env.h"
#include "tests/gpu/schedule_cases.h"

namespace topotune::rt {
namespace {

using sched::DataType;

std::vector<float> ramp(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>(i % 41) - 20);
  return v;
}

TEST(DeviceExecutor, ServerCopiesAndSumsOnTheDevice) {
  TT_REQUIRE_GPU();
  auto t = NcclTransport::create_single(0, {});
  ASSERT_TRUE(t.has_value()) << t.error().message;
  const std::int64_t n = 10001;  // odd: the halves are 5001 and 5000 elements
  for (DataType dt : {DataType::F32, DataType::F16, DataType::BF16}) {
    sched::CollectiveSpec spec;
    spec.bytes = Bytes(n * sched::dtype_size(dt));
    spec.dtype = dt;
    sched::ScheduleBuilder b(spec, "hand-made");
    const EndpointId r0 = sched::endpoint_of(RankId(0));
    const EndpointId s1 = b.add_host_cpu(0, RankId(0));
    const EndpointId s2 = b.add_host_cpu(0, RankId(0));
    const sched::Slice all{Bytes(0), spec.bytes};
    const sched::Slice lo = sched::block(spec, 0, 2);
    const sched::Slice hi = sched::block(spec, 1, 2);
    // With x the input: t0 s1 = x; t1 s2.lo = x.lo; t2 s2.lo += r0.lo -> 2x;
    // t3 r0.lo += s2.lo -> 3x; t4 r0.hi += s1.hi -> 2x. Expected: 3x on lo, 2x on hi.
    const TransferId t0 = b.add(r0, s1, all, false, TransferId{});
    const TransferId t1 = b.add(s1, s2, lo, false, t0);
    const TransferId t2 = b.add(r0, s2, lo, true, t1);
    b.add(s2, r0, lo, true, t2);
    b.add(s1, r0, hi, true, t0);
    auto s = std::move(b).build();
    ASSERT_TRUE(s.has_value()) << s.error().message;

    const std::vector<float> x = ramp(static_cast<std::size_t>(n));
    auto buf = DeviceBuffer::allocate(static_cast<std::size_t>(spec.bytes.value));
    ASSERT_TRUE(buf);
    ASSERT_TRUE(copy_to_device(buf->view(), encode_elements(x, dt), (*t)->stream()));
    CudaReducer reducer((*t)->stream());
    DeviceExecutor ex;
    Expected<void> r = ex.run(*s, RankId(0), buf->view(), **t, reducer);
    ASSERT_TRUE(r.has_value()) << r.error().message;
    std::vector<std::byte> out(buf->size());
    ASSERT_TRUE(copy_to_host(out, buf->view(), (*t)->stream()));
    const std::vector<float> got = decode_elements(out, dt);
    const std::size_t half = static_cast<std::size_t>(lo.size.value / sched::dtype_size(dt));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != (i < half ? 3 : 2) * x[i];
    EXPECT_EQ(wrong, 0u) << sched::dtype_name(dt);
  }
}

TEST(DeviceExecutor, EveryAllreduceScheduleOnOneRank) {
  TT_REQUIRE_GPU();
  auto t = NcclTransport::create_single(0, {});
  ASSERT_TRUE(t.has_value()) << t.error().message;
  CudaReducer reducer((*t)->stream());
  for (const testing::ScheduleCase& c : testing::allreduce_cases()) {
    for (std::int64_t elements : {0, 1, 1000, 262147}) {
      const DataType dt = DataType::BF16;
      auto s = testing::make_case_schedule(c, 1, 1, elements * 2, dt);
      ASSERT_TRUE(s.has_value()) << c.label() << ": " << s.error().message;
      const std::vector<float> x = ramp(static_cast<std::size_t>(elements));
      const std::vector<std::byte> in = encode_elements(x, dt);
      auto buf = DeviceBuffer::allocate(in.size());
      ASSERT_TRUE(buf);
      ASSERT_TRUE(copy_to_device(buf->view(), in, (*t)->stream()));
      DeviceExecutor ex;
      for (int run = 0; run < 3; ++run) {
        Expected<void> r = ex.run(*s, RankId(0), buf->view(), **t, reducer);
        ASSERT_TRUE(r.has_value()) << c.label() << ": " << r.error().message;
      }
      std::vector<std::byte> out(in.size());
      ASSERT_TRUE(copy_to_host(out, buf->view(), (*t)->stream()));
      EXPECT_EQ(out, in) << c.label() << " " << elements << " elements";
    }
  }
}

}  // namespace
}  // namespace topotune::rt
