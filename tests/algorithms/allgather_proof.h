#pragma once
// Shared by the tests of Open MPI's allgathers (neighbor exchange, Bruck): the interpreter's
// proof that every rank ends with every block, on rank counts with one and two ranks per host
// and sizes from empty to blocks of uneven elements, with the bytes every allgather sends.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>

#include "algorithms/algorithm.h"
#include "algorithms/cost_model.h"
#include "algorithms/rank_layout.h"
#include "algorithms/schedule/interpreter.h"
#include "algorithms/schedule/schedule_stats.h"

namespace topotune::algo::testing {

/// What a generator's own test checks beyond the proof: its depth and name, where they apply.
using AllgatherCheck = std::function<void(int n, std::int64_t bytes, const sched::Schedule&,
                                          const sched::ScheduleStats&, const std::string& what)>;

inline void expect_proven_allgather(const Algorithm& gen, std::initializer_list<int> rank_counts,
                                    const AllgatherCheck& check) {
  for (int n : rank_counts) {
    for (int G : {1, 2}) {
      if (n % G != 0) continue;
      for (std::int64_t S : {std::int64_t{0}, std::int64_t{4}, 4 * (7 * std::int64_t{n} + 1),
                             std::int64_t{1} << 24}) {
        const std::string what =
            "n=" + std::to_string(n) + " G=" + std::to_string(G) + " S=" + std::to_string(S);
        sched::CollectiveSpec spec;
        spec.collective = sched::Collective::Allgather;
        spec.ranks = n;
        spec.bytes = Bytes(S);
        const auto s = gen.generate(spec, *flat_layout(n, G));
        ASSERT_TRUE(s) << what << ": " << s.error().message;
        const auto proof = sched::verify(*s);
        ASSERT_TRUE(proof) << what << ": " << proof.error().message;
        const sched::ScheduleStats st = sched::schedule_stats(*s);
        std::int64_t sent = 0;
        for (const Bytes& b : st.sent) sent += b.value;
        EXPECT_EQ(sent, (n - 1) * S) << what;  // each rank receives every block but its own once
        check(n, S, *s, st, what);
      }
    }
  }
}

/// Hosts joined by a slow network (10 us, 1 GB/s), their ranks by a fast link (1 us, 100 GB/s).
inline CostParams slow_network_params() {
  CostParams p;
  p.intra = HopCost{Seconds(1e-6), BytesPerSec(1e11)};
  p.inter = HopCost{Seconds(1e-5), BytesPerSec(1e9)};
  return p;
}

}  // namespace topotune::algo::testing
