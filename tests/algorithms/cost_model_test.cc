// Closed forms against the critical path of the algorithm's own schedule (cost_model.h): the
// per-transfer costs here apply the sharing each closed form documents, derived per algorithm
// in the comments, so a closed form that disagrees with its schedule's structure (steps,
// chunk sizes, dependencies) fails. Sizes divide evenly (the forms are fluid).
#include "algorithms/cost_model.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "algorithms/double_binary_tree.h"
#include "algorithms/parameter_server.h"
#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"

namespace topotune::algo {
namespace {

CostParams params() {
  CostParams p;
  p.intra = HopCost{microseconds(2), gbyte_per_sec(100)};
  p.inter = HopCost{microseconds(10), gbyte_per_sec(12.5)};
  p.gpu_to_cpu = HopCost{microseconds(3), gbyte_per_sec(20)};
  p.net_to_cpu = HopCost{microseconds(12), gbyte_per_sec(12.5)};
  p.gpu_reduce = gbyte_per_sec(500);
  p.cpu_reduce = gbyte_per_sec(20);
  return p;
}

// Shares per level: how many equal transfers move on a transfer's bottleneck at once, and how
// many reductions its receiver runs at once.
struct Share {
  double intra_beta = 1, intra_gamma = 1, inter_beta = 1, inter_gamma = 1;
};

void expect_closed_form_is_critical_path(const std::string& name, AlgorithmOptions o, int n,
                                         int gph, std::int64_t bytes, Share share,
                                         sched::Collective c = sched::Collective::Allreduce) {
  sched::CollectiveSpec spec;
  spec.collective = c;
  spec.ranks = n;
  spec.bytes = Bytes(bytes);
  const CostParams p = params();
  auto layout = flat_layout(n, gph);
  auto algo = make_algorithm(name, o, c);
  ASSERT_TRUE(algo);
  auto s = (*algo)->generate(spec, *layout);
  ASSERT_TRUE(s) << s.error().message;
  const auto closed = (*algo)->closed_form(spec, *layout, p);
  ASSERT_TRUE(closed);
  const sched::Schedule& sch = *s;
  const RankLayout& lay = *layout;
  const auto cost = [&](TransferId, const sched::Transfer& t) {
    const HopCost& hop = hop_of(sch, lay, p, t);
    const bool intra = &hop == &p.intra;
    const double b = t.slice.size.as_double();
    double secs = hop.latency.value + (intra ? share.intra_beta : share.inter_beta) * b / hop.bandwidth.value;
    if (t.reduce) secs += (intra ? share.intra_gamma : share.inter_gamma) * b * p.gamma_gpu();
    return Seconds(secs);
  };
  const Seconds critical = critical_path_time(sch, cost);
  EXPECT_NEAR(closed->value, critical.value, 1e-9 * critical.value + 1e-15)
      << name << " n=" << n << " gph=" << gph << " bytes=" << bytes << " C=" << o.channels
      << " K=" << o.chunks;
}

AlgorithmOptions ck(int c, int k) {
  AlgorithmOptions o;
  o.channels = c;
  o.chunks = k;
  return o;
}

TEST(ClosedForm, RingIsItsCriticalPath) {
  // Every send of a position is FIFO-chained: 2(n-1)K transfers of S/(nCK) bytes, each
  // sharing its link with the other C-1 channels' transfer (same ring): share C.
  for (int n : {2, 3, 5, 8, 16}) {
    for (const auto& [c, k] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{3, 4}}) {
      const double C = c;
      const std::int64_t S = 4LL * n * c * k * 1000;
      expect_closed_form_is_critical_path("ring", ck(c, k), n, 1, S, Share{C, C, C, C});
      // Hosts of 4 GPUs: the FIFO chain of the position with the network hop is the slowest.
      if (n % 4 == 0) expect_closed_form_is_critical_path("ring", ck(c, k), n, 4, S, Share{C, C, C, C});
    }
  }
}

TEST(ClosedForm, RingHalvesAndBroadcastAreTheirCriticalPaths) {
  // Same sharing as the allreduce ring: the C channels' transfers share each link.
  for (int n : {2, 4, 7}) {
    for (const auto& [c, k] : {std::pair{1, 1}, std::pair{2, 3}}) {
      const double C = c;
      const std::int64_t S = 4LL * n * c * k * 1000;
      for (auto coll : {sched::Collective::ReduceScatter, sched::Collective::Allgather,
                        sched::Collective::Broadcast}) {
        expect_closed_form_is_critical_path("ring", ck(c, k), n, 1, S, Share{C, C, C, C}, coll);
      }
    }
  }
}

TEST(ClosedForm, TreeIsItsCriticalPath) {
  // Up/down transfers carry S/(2CK); in steady state a NIC carries, per channel, both trees'
  // up and down flows (4C in all), and a parent reduces its two children's chunks (2C).
  for (int n : {2, 3, 4, 7, 8, 13, 16}) {
    for (const auto& [c, k] : {std::pair{1, 1}, std::pair{1, 4}, std::pair{2, 3}}) {
      const std::int64_t S = 4LL * 2 * c * k * 1000;
      expect_closed_form_is_critical_path("tree", ck(c, k), n, 1, S,
                                          Share{4.0 * c, 2.0 * c, 4.0 * c, 2.0 * c});
    }
  }
}

TEST(ClosedForm, HalvingDoublingIsItsCriticalPath) {
  // Pairs exchange one transfer each way per step: no sharing.
  for (int n : {2, 3, 4, 5, 6, 7, 8, 12, 16}) {
    expect_closed_form_is_critical_path("rhd", AlgorithmOptions{}, n, 1, 4LL * 16 * 1000, Share{});
  }
}

TEST(ClosedForm, ColocatedParameterServerIsItsCriticalPath) {
  // One GPU per host: the n-1 pushes of a shard share the server's ingress and are reduced
  // there together; the n-1 pulls share its egress.
  for (int n : {2, 3, 5, 8}) {
    for (int k : {1, 2, n}) {
      if (k > n) continue;
      AlgorithmOptions o;
      o.shards = k;
      const double m = n - 1;
      expect_closed_form_is_critical_path("ps", o, n, 1, 4LL * n * k * 100, Share{m, m, m, m});
    }
  }
}

TEST(ClosedForm, HierarchicalIsItsCriticalPath) {
  // Intra-host rings: C channels share a GPU's link; inner ring: the same on the network.
  for (int G : {2, 4}) {
    for (int H : {2, 3, 4}) {
      for (const auto& [c, k] : {std::pair{1, 1}, std::pair{2, 2}}) {
        const double C = c;
        const std::int64_t S = 4LL * G * H * c * k * 2 * 500;
        AlgorithmOptions o = ck(c, k);
        expect_closed_form_is_critical_path("hierarchical", o, G * H, G, S, Share{C, C, C, C});
        o.inner = InnerAlgorithm::Tree;  // the inner tree shares as the flat tree does
        expect_closed_form_is_critical_path("hierarchical", o, G * H, G, S,
                                            Share{C, C, 4.0 * c, 2.0 * c});
        o.inner = InnerAlgorithm::Rhd;
        if ((H & (H - 1)) == 0) {
          expect_closed_form_is_critical_path("hierarchical", o, G * H, G, S, Share{C, C, 1, 1});
        }
        o.inner = InnerAlgorithm::Ps;  // H-1 pushes into each rail server
        expect_closed_form_is_critical_path("hierarchical", o, G * H, G, S,
                                            Share{C, C, H - 1.0, H - 1.0});
      }
    }
  }
}

TEST(ClosedForm, HandSolvedCases) {
  const CostParams p = params();
  // Ring allreduce, 4 ranks, 1 GPU per host, S = 4 MB (4e6 bytes), K = 1:
  // 6 steps of 1e6 bytes over 12.5 GB/s = 80 us each, plus 10 us latency; 3 reduces of 1e6
  // bytes at 500 GB/s = 2 us each: 6·90 + 3·2 = 546 us.
  EXPECT_NEAR(ring_time(4, 4e6, 1, p.inter, p.gamma_gpu(), true, true).us(), 546.0, 1e-6);
  // CPU parameter server, 2 hosts x 1 GPU, 2 shards of 1e6 bytes, one per CPU: each CPU gets
  // one push over the network (12 + 80 us) and one over PCIe (3 + 50 us); PCIe arrives first,
  // reduced by 53 + 50 = 103 us (1e6 / 20 GB/s); the network push at 92 us waits, done at
  // 103 + 50 = 153 us; pulls mirror the pushes: the slower one takes 92 us: 245 us.
  EXPECT_NEAR(ps_cpu_closed_form(2, 1, 2, 2e6, p).us(), 245.0, 1e-6);
  // Broadcast chain, 3 ranks, K = 2 chunks of 5e5 bytes: 3 stages of 10 + 40 us = 150 us.
  EXPECT_NEAR(chain_time(3, 1e6, 2, p.inter).us(), 150.0, 1e-6);
}

}  // namespace
}  // namespace topotune::algo
