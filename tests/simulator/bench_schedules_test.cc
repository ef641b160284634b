// The benchmark's schedules (bench/bench_schedules.h) are correct allreduces: the symbolic
// interpreter proves the end state and finds no race, so the benchmark times real schedules.

#include "bench/bench_schedules.h"

#include <gtest/gtest.h>

#include "algorithms/schedule/interpreter.h"

namespace topotune::bench {
namespace {

TEST(BenchSchedules, HierarchicalIsAVerifiedAllreduce) {
  for (int hosts : {1, 2, 4, 16}) {
    for (const std::vector<int>& intra :
         {std::vector<int>{0}, std::vector<int>{1, 0}, std::vector<int>{0, 1, 3, 2, 6, 7, 5, 4}}) {
      const auto g = static_cast<std::int64_t>(intra.size());
      // Sizes that do not divide evenly too (+ 3 elements).
      for (std::int64_t bytes : {4 * 256 * g * hosts, 4 * (256 * g * hosts + 3)}) {
        const sched::Schedule s = hierarchical_allreduce(hosts, intra, Bytes(bytes));
        // Transfers: H G 2(G-1) + G H 2 log2(H) (bench_schedules.h).
        const int levels = std::countr_zero(static_cast<unsigned>(hosts));
        EXPECT_EQ(s.size(),
                  static_cast<std::size_t>(hosts * g * 2 * (g - 1) + g * hosts * 2 * levels));
        const auto ok = sched::verify(s);
        EXPECT_TRUE(ok) << hosts << "x" << g << " S=" << bytes << ": " << ok.error().message;
      }
    }
  }
}

TEST(BenchSchedules, RingIsAVerifiedAllreduce) {
  for (int n : {2, 3, 8}) {
    std::vector<int> order;
    for (int i = n - 1; i >= 0; --i) order.push_back(i);
    const sched::Schedule s = ring_allreduce(order, Bytes(4 * 1001));
    EXPECT_EQ(s.size(), static_cast<std::size_t>(2 * (n - 1) * n));
    const auto ok = sched::verify(s);
    EXPECT_TRUE(ok) << n << ": " << ok.error().message;
  }
}

}  // namespace
}  // namespace topotune::bench
