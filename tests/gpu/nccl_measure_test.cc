// The nccl rows of `measure --backend nccl`: the summary arithmetic (runs everywhere) and the
// whole path on a one-rank communicator (needs a GPU).

#include "runtime/nccl/nccl_measure.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/gpu/gpu_test_env.h"

namespace topotune::rt {
namespace {

TEST(NcclMeasure, SummariseTimesAsNcclTests) {
  MeasurementRow row;
  row.bytes = 1'000'000'000;
  summarise_times({4.0, 1.0, 3.0, 2.0, 5.0}, 4, row);
  // Sorted 1..5 s: median v[5/2] = 3 s, p10 v[5/10] = v[0] = 1 s, p90 v[45/10] = v[4] = 5 s.
  EXPECT_DOUBLE_EQ(row.time_us, 3e6);
  EXPECT_DOUBLE_EQ(*row.time_us_min, 1e6);
  EXPECT_DOUBLE_EQ(*row.time_us_p10, 1e6);
  EXPECT_DOUBLE_EQ(*row.time_us_p90, 5e6);
  EXPECT_DOUBLE_EQ(*row.time_us_max, 5e6);
  EXPECT_EQ(*row.iterations, 5);
  // algbw = 1e9 B / 3 s = 0.333 GB/s; busbw = algbw x 2(4-1)/4 = 0.5 GB/s.
  EXPECT_NEAR(row.algbw_GBps, 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(row.busbw_GBps, 0.5, 1e-12);
}

TEST(NcclMeasure, SummariseTimesUsesTheCollectivesBusFactor) {
  MeasurementRow row;
  row.bytes = 1'000'000'000;
  summarise_times({2.0}, 4, row, sched::Collective::Allgather);
  // algbw = 1e9 B / 2 s = 0.5 GB/s; busbw = algbw x (4-1)/4.
  EXPECT_NEAR(row.busbw_GBps, 0.375, 1e-12);
}

// ncclReduceScatter and ncclAllGather in place on one rank: the paths of `measure --backend
// nccl --collective reduce_scatter|allgather` (one rank owns the whole buffer).
TEST(NcclMeasure, OneRankReduceScatterAndAllGatherAreVerified) {
  TT_REQUIRE_GPU();
  auto t = NcclTransport::create_single(0, {});
  ASSERT_TRUE(t.has_value()) << t.error().message;
  for (auto c : {sched::Collective::ReduceScatter, sched::Collective::Allgather}) {
    const Candidate nccl = nccl_collective_candidate(**t, sched::DataType::F32, c);
    NcclAllreduceOptions o{.warmup = 1, .iterations = 3};
    o.collective = c;
    auto row = measure_on_device(**t, nccl, 1 << 20, sched::DataType::F32, o);
    ASSERT_TRUE(row.has_value()) << row.error().message;
    EXPECT_EQ(row->errors.value_or(-1), 0) << sched::collective_name(c);
    EXPECT_GT(row->time_us, 0.0);
  }
}

TEST(NcclMeasure, OneRankRowsAreVerifiedAndTimed) {
  TT_REQUIRE_GPU();
  auto t = NcclTransport::create_single(0, {});
  ASSERT_TRUE(t.has_value()) << t.error().message;
  const std::vector<std::int64_t> sizes = {0, 1024, 1 << 20};
  auto rows =
      measure_nccl_allreduce(**t, sizes, sched::DataType::BF16, {.warmup = 1, .iterations = 5});
  ASSERT_TRUE(rows.has_value()) << rows.error().message;
  ASSERT_EQ(rows->size(), sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const MeasurementRow& r = (*rows)[i];
    EXPECT_EQ(r.algorithm, "nccl");
    EXPECT_EQ(r.bytes, sizes[i]);
    EXPECT_EQ(r.count, sizes[i] / 2);
    EXPECT_EQ(r.errors.value_or(-1), 0);
    EXPECT_EQ(r.iterations.value_or(0), 5);
    EXPECT_GE(r.time_us, 0.0);
    if (sizes[i] > 0) {
      EXPECT_GT(r.time_us, 0.0);  // 0 B times an empty interval, possibly 0
    }
    EXPECT_EQ(r.busbw_GBps, 0.0);  // one rank: nccl-tests' factor 2(n-1)/n is 0
  }
}

}  // namespace
}  // namespace topotune::rt
