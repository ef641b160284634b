// NcclTransport across processes (label gpu): `mpirun -np N` with one GPU per rank, which a
// single-GPU machine cannot provide (NCCL refuses two ranks on one device), so this test
// exits 77 (ctest: skipped) unless every host has a GPU for each of its ranks. On a machine
// with >= N GPUs it checks what one rank cannot: messages between different ranks matched in
// order inside NCCL groups, a receive followed by a CudaReducer sum on the same stream (the
// executor's reduce step on device memory), and ncclAllReduce verified over N ranks.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "runtime/nccl/device_buffer.h"
#include "runtime/nccl/device_executor.h"
#include "runtime/nccl/element_codec.h"
#include "runtime/nccl/nccl_measure.h"
#include "runtime/nccl/nccl_mpi_bootstrap.h"
#include "tests/gpu/schedule_cases.h"

namespace topotune::rt {
namespace {

NcclTransport* g_transport = nullptr;  // created in main(), before the tests

std::vector<std::byte> message(int from, int to, int k, std::size_t n) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>(from * 37 + to * 11 + k + i);
  return v;
}

TEST(NcclMpi, AllToAllInOneBatchMatchesMessagesInOrder) {
  NcclTransport& t = *g_transport;
  const int n = t.world_size();
  const int me = t.rank().value;
  const std::size_t size = 70001;  // odd, so that a swapped pair of messages is noticed
  // Two messages to every peer (and to itself), distinct contents: matched by order alone.
  auto send = DeviceBuffer::allocate(2 * n * size);
  auto recv = DeviceBuffer::allocate(2 * n * size);
  ASSERT_TRUE(send && recv);
  for (int p = 0; p < n; ++p) {
    for (int k = 0; k < 2; ++k) {
      BufferView v{send->data() + (2 * p + k) * size, size};
      ASSERT_TRUE(copy_to_device(v, message(me, p, k, size), t.stream()));
    }
  }
  std::vector<Request> reqs;
  t.begin_batch();
  for (int p = 0; p < n; ++p) {
    for (int k = 0; k < 2; ++k) {
      auto s = t.isend(RankId(p), BufferView{send->data() + (2 * p + k) * size, size}, k);
      auto r = t.irecv(RankId(p), BufferView{recv->data() + (2 * p + k) * size, size}, k);
      ASSERT_TRUE(s && r);
      reqs.push_back(*s);
      reqs.push_back(*r);
    }
  }
  ASSERT_TRUE(t.end_batch());
  auto w = t.wait_all(reqs);
  ASSERT_TRUE(w.has_value()) << w.error().message;
  std::vector<std::byte> got(size);
  for (int p = 0; p < n; ++p) {
    for (int k = 0; k < 2; ++k) {
      ASSERT_TRUE(
          copy_to_host(got, BufferView{recv->data() + (2 * p + k) * size, size}, t.stream()));
      EXPECT_EQ(got, message(p, me, k, size)) << "message " << k << " from rank " << p;
    }
  }
}

TEST(NcclMpi, ReceiveThenReduceOnTheStream) {
  NcclTransport& t = *g_transport;
  const int n = t.world_size();
  const int me = t.rank().value;
  const std::size_t count = 1000003;
  // Every element of rank r is r + 1; after adding the left neighbour's, (r + 1) + (left + 1).
  const int left = (me + n - 1) % n;
  for (sched::DataType dt : {sched::DataType::F32, sched::DataType::F16, sched::DataType::BF16}) {
    const std::size_t bytes = count * static_cast<std::size_t>(sched::dtype_size(dt));
    auto mine = DeviceBuffer::allocate(bytes);
    auto scratch = DeviceBuffer::allocate(bytes);
    ASSERT_TRUE(mine && scratch);
    const std::vector<float> own(count, static_cast<float>(me + 1));
    ASSERT_TRUE(copy_to_device(mine->view(), encode_elements(own, dt), t.stream()));
    CudaReducer reducer(t.stream());
    t.begin_batch();
    auto s = t.isend(RankId((me + 1) % n), mine->view(), 0);
    auto r = t.irecv(RankId(left), scratch->view(), 0);
    ASSERT_TRUE(s && r);
    ASSERT_TRUE(t.end_batch());
    // Queued after the group on the same stream: no host wait between receive and sum, and
    // the send of `mine` is ordered before the sum that overwrites it.
    ASSERT_TRUE(reducer.sum(mine->view(), scratch->view(), dt));
    std::vector<Request> reqs = {*s, *r};
    ASSERT_TRUE(t.wait_all(reqs));
    std::vector<std::byte> out(bytes);
    ASSERT_TRUE(copy_to_host(out, mine->view(), t.stream()));
    const std::vector<float> got = decode_elements(out, dt);
    std::size_t wrong = 0;
    for (float v : got) wrong += v != static_cast<float>(me + 1 + left + 1);
    EXPECT_EQ(wrong, 0u) << sched::dtype_name(dt);
  }
}

TEST(NcclMpi, AllreduceBaselineVerifiesOverAllRanks) {
  const std::vector<std::int64_t> sizes = {4, 4096, 1 << 22};
  for (sched::DataType dt : {sched::DataType::F32, sched::DataType::F16, sched::DataType::BF16}) {
    auto rows = measure_nccl_allreduce(*g_transport, sizes, dt, {.warmup = 2, .iterations = 5});
    ASSERT_TRUE(rows.has_value()) << rows.error().message;
    for (const MeasurementRow& row : *rows) {
      EXPECT_EQ(row.errors.value_or(-1), 0) << sched::dtype_name(dt) << " " << row.bytes << " B";
      EXPECT_GT(row.busbw_GBps, 0.0);
    }
  }
  EXPECT_TRUE(g_transport->barrier());
}

// Rank r's element i: small integers whose sum over ranks is exact in every element type.
float input_of(int r, std::size_t i) {
  return static_cast<float>(static_cast<int>((r + i) % 5) - 2);
}

TEST(NcclMpi, EveryAllreduceScheduleOnDeviceMemory) {
  NcclTransport& t = *g_transport;
  const int n = t.world_size();
  const int me = t.rank().value;
  CudaReducer reducer(t.stream());
  // One host of n GPUs, and n hosts of one GPU (hierarchical then crosses "hosts").
  for (int gpus_per_host : {n, 1}) {
    for (const testing::ScheduleCase& c : testing::allreduce_cases()) {
      for (std::int64_t elements : {1, 4099, 1 << 20}) {
        const sched::DataType dt = sched::DataType::BF16;
        auto s = testing::make_case_schedule(c, n, gpus_per_host, elements * 2, dt);
        ASSERT_TRUE(s.has_value()) << c.label() << ": " << s.error().message;
        std::vector<float> x(static_cast<std::size_t>(elements));
        std::vector<float> want(x.size(), 0.0f);
        for (std::size_t i = 0; i < x.size(); ++i) {
          x[i] = input_of(me, i);
          for (int r = 0; r < n; ++r) want[i] += input_of(r, i);
        }
        const std::vector<std::byte> in = encode_elements(x, dt);
        auto buf = DeviceBuffer::allocate(in.size());
        ASSERT_TRUE(buf);
        ASSERT_TRUE(copy_to_device(buf->view(), in, t.stream()));
        DeviceExecutor ex;
        Expected<void> r = ex.run(*s, RankId(me), buf->view(), t, reducer);
        ASSERT_TRUE(r.has_value()) << c.label() << ": " << r.error().message;
        std::vector<std::byte> out(in.size());
        ASSERT_TRUE(copy_to_host(out, buf->view(), t.stream()));
        EXPECT_EQ(decode_elements(out, dt), want)
            << c.label() << ", " << elements << " elements, " << gpus_per_host << " GPUs/host";
      }
    }
  }
}

}  // namespace
}  // namespace topotune::rt

int main(int argc, char** argv) {
  using namespace topotune::rt;  // NOLINT: a test's main
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Every rank must take the same branch: skip only if some rank lacks a GPU.
  auto device = choose_local_device(MPI_COMM_WORLD);
  int ok = device.has_value() ? 1 : 0;
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all_ok == 0) {
    if (!device.has_value()) {
      std::printf("rank %d: no CUDA device visible for this rank: %s (skipped)\n", rank,
                  device.error().message.c_str());
    }
    MPI_Finalize();
    return 77;
  }
  auto transport = nccl_transport_over_mpi(MPI_COMM_WORLD, {});
  if (!transport) {
    std::fprintf(stderr, "rank %d: %s\n", rank, transport.error().message.c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  g_transport = transport->get();
  ::testing::InitGoogleTest(&argc, argv);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  transport->reset();
  MPI_Finalize();
  return any_failed;
}
