// The executor and the harness over Open MPI (label mpi): run with
//   mpirun --allow-run-as-root --oversubscribe -np 4 runtime_mpi_test
// Every rank runs every test; a failed expectation on any rank fails that rank's exit code and
// so mpirun's. The schedules are the hand-built test schedules; results are verified exactly.

#include <gtest/gtest.h>

#include <memory>

#include "runtime/executor.h"
#include "runtime/host_reducer.h"
#include "runtime/measure_harness.h"
#include "runtime/mpi_transport.h"
#include "tests/runtime/test_schedules.h"

namespace topotune::rt {
namespace {

MpiTransport* g_transport = nullptr;

sched::CollectiveSpec spec_of(int n, std::int64_t bytes, sched::DataType t) {
  sched::CollectiveSpec spec;
  spec.ranks = n;
  spec.dtype = t;
  spec.bytes = Bytes(bytes);
  return spec;
}

// Measures `s` with the harness (which verifies every element each iteration).
std::optional<MeasurementRow> measure_schedule(const sched::Schedule& s, const std::string& name) {
  Executor ex;
  HostReducer reducer;
  MeasureHarness h(*g_transport, HarnessOptions{1, 2, s.spec().dtype});
  Candidate c{
      name, [&](BufferView b) { return ex.run(s, g_transport->rank(), b, *g_transport, reducer); }};
  auto row = h.measure(c, s.spec().bytes.value);
  EXPECT_TRUE(row) << (row ? "" : row.error().message);
  return row ? *row : std::nullopt;
}

TEST(MpiExecutor, TestSchedulesAreExactOverMpi) {
  const int n = g_transport->world_size();
  for (auto t : {sched::DataType::F32, sched::DataType::F16, sched::DataType::BF16}) {
    // 2^18 + 3 elements: not divisible by the rank count, large enough for rendezvous messages.
    const auto spec = spec_of(n, ((1 << 18) + 3) * sched::dtype_size(t), t);
    const std::vector<std::pair<std::string, sched::Schedule>> cases = {
        {"ring", testing::ring_allreduce(spec, 2)},
        {"ps", testing::ps_allreduce(spec)},
        {"sharded_ps", testing::sharded_ps_allreduce(spec)},
        {"tree", testing::tree_allreduce(spec)},
        {"hierarchical", testing::hierarchical_allreduce(spec, n % 2 == 0 ? 2 : 1)},
    };
    for (const auto& [name, s] : cases) {
      auto row = measure_schedule(s, name);
      if (g_transport->rank().value == 0) {
        ASSERT_TRUE(row.has_value()) << name;
        EXPECT_EQ(row->errors, 0) << name << " " << sched::dtype_name(t);
        EXPECT_EQ(row->iterations, 2);
      }
    }
  }
}

TEST(MpiExecutor, MpiAllreduceBaselineIsExact) {
  for (auto t : {sched::DataType::F32, sched::DataType::F16, sched::DataType::BF16}) {
    MeasureHarness h(*g_transport, HarnessOptions{1, 2, t});
    Candidate c{"mpi", [&](BufferView b) { return g_transport->allreduce(b, t); }};
    auto row = h.measure(c, 65536 * sched::dtype_size(t));
    ASSERT_TRUE(row) << row.error().message;
    if (g_transport->rank().value == 0) {
      ASSERT_TRUE(row->has_value());
      EXPECT_EQ((*row)->errors, 0) << sched::dtype_name(t);
    }
  }
}

// MPI_Reduce_scatter and MPI_Allgatherv leave every block where topotune's schedules do
// (sched::block: 1001 elements on 4 ranks are blocks of 251, 250, 250, 250).
TEST(MpiExecutor, MpiReduceScatterAndAllgatherBaselinesAreExact) {
  for (auto c : {sched::Collective::ReduceScatter, sched::Collective::Allgather}) {
    for (auto t : {sched::DataType::F32, sched::DataType::BF16}) {
      MeasureHarness h(*g_transport, HarnessOptions{1, 2, t, c});
      Candidate cand{"mpi", [&](BufferView b) {
                       return c == sched::Collective::ReduceScatter
                                  ? g_transport->reduce_scatter(b, t)
                                  : g_transport->allgather(b, t);
                     }};
      for (std::int64_t count : {65536, 1001}) {
        auto row = h.measure(cand, count * sched::dtype_size(t));
        ASSERT_TRUE(row) << row.error().message;
        if (g_transport->rank().value == 0) {
          ASSERT_TRUE(row->has_value());
          EXPECT_EQ((*row)->errors, 0)
              << sched::collective_name(c) << " " << sched::dtype_name(t) << " " << count;
        }
      }
    }
  }
}

TEST(MpiTransport, ErrorsComeBackAsValues) {
  // Sending to a rank that does not exist is refused by MPI (MPI_ERR_RANK) and, with
  // MPI_ERRORS_RETURN, reported as an Error carrying MPI's message.
  std::byte b{};
  auto r = g_transport->isend(RankId(g_transport->world_size() + 5), ConstBufferView(&b, 1), 0);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("MPI_Isend"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace topotune::rt

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  auto session = topotune::rt::MpiSession::start(&argc, &argv);
  if (!session) return 2;
  auto transport = topotune::rt::MpiTransport::create();
  if (!transport) return 2;
  topotune::rt::g_transport = &*transport;
  // Only rank 0 prints the gtest report; every rank's failures still set its exit code.
  if (session->rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int rc = RUN_ALL_TESTS();
  topotune::rt::g_transport = nullptr;
  return rc;
}
