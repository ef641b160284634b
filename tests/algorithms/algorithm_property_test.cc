// Property tests: every algorithm, for every rank count 1..17, 24, 32, 64, 128 and sizes 0,
// one element, a size not divisible by the rank count and a large one, generates a schedule
// that the symbolic interpreter proves, whose step count and bytes per rank match the
// formulas documented in the algorithm's header.
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "algorithms/double_binary_tree.h"
#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "algorithms/schedule/interpreter.h"
#include "algorithms/schedule/schedule_stats.h"

namespace topotune::algo {
namespace {

using sched::Collective;

struct Run {
  sched::Schedule schedule;
  sched::ScheduleStats stats;
};

// Generates and proves; failures carry the configuration.
std::optional<Run> run(const std::string& name, AlgorithmOptions o, Collective c, int n, int gph,
                       std::int64_t bytes) {
  sched::CollectiveSpec spec;
  spec.collective = c;
  spec.ranks = n;
  spec.bytes = Bytes(bytes);
  const std::string what = name + " n=" + std::to_string(n) + " gph=" + std::to_string(gph) +
                           " bytes=" + std::to_string(bytes) + " C=" + std::to_string(o.channels) +
                           " K=" + std::to_string(o.chunks);
  auto layout = flat_layout(n, gph);
  EXPECT_TRUE(layout) << what;
  auto algo = make_algorithm(name, o, c);
  EXPECT_TRUE(algo) << what;
  auto s = (*algo)->generate(spec, *layout);
  if (!s) {
    ADD_FAILURE() << what << ": " << s.error().message;
    return std::nullopt;
  }
  const auto proof = sched::verify(*s);
  if (!proof) {
    ADD_FAILURE() << what << ": " << proof.error().message;
    return std::nullopt;
  }
  auto stats = sched::schedule_stats(*s);
  return Run{std::move(s).value(), std::move(stats)};
}

// Sizes in bytes (fp32): 0, one element, not divisible by n (7n+1 elements), and large.
std::vector<std::int64_t> sizes_for(int n) {
  std::vector<std::int64_t> v = {0, 4, 4 * (7 * static_cast<std::int64_t>(n) + 1)};
  if (n <= 17 || n == 64) v.push_back((std::int64_t{1} << 30) + 4 * 3);
  return v;
}

std::int64_t total_sent(const Run& r, bool ranks_only = false) {
  std::int64_t t = 0;
  const std::size_t end =
      ranks_only ? static_cast<std::size_t>(r.schedule.num_ranks()) : r.stats.sent.size();
  for (std::size_t e = 0; e < end; ++e) t += r.stats.sent[e].value;
  return t;
}

class AlgorithmProperty : public ::testing::TestWithParam<int> {};

TEST_P(AlgorithmProperty, RingFamily) {
  const int n = GetParam();
  for (const auto& [C, K] : {std::pair{1, 1}, std::pair{2, 3}}) {
    if (n >= 64 && C > 1) continue;  // the structure is the same; keep the suite fast
    AlgorithmOptions o;
    o.channels = C;
    o.chunks = K;
    for (std::int64_t S : sizes_for(n)) {
      // Ring allreduce: 2(n-1)K steps; every byte crosses 2(n-1) links in total; when n·C·K
      // divides the element count, each rank sends exactly 2(n-1)/n·S.
      if (auto r = run("ring", o, Collective::Allreduce, n, 1, S)) {
        EXPECT_EQ(r->stats.steps, n == 1 ? 0 : 2 * (n - 1) * K);
        EXPECT_EQ(total_sent(*r), 2 * (n - 1) * S);
        if ((S / 4) % (n * C * K) == 0) {
          EXPECT_EQ(r->stats.max_sent_per_rank.value, 2 * (n - 1) * S / n);
          EXPECT_EQ(r->stats.min_sent_per_rank.value, 2 * (n - 1) * S / n);
        }
      }
      for (Collective c : {Collective::ReduceScatter, Collective::Allgather}) {
        if (auto r = run("ring", o, c, n, 1, S)) {
          EXPECT_EQ(r->stats.steps, n == 1 ? 0 : (n - 1) * K);
          EXPECT_EQ(total_sent(*r), (n - 1) * S);
          if ((S / 4) % (n * C * K) == 0) {
            EXPECT_EQ(r->stats.max_sent_per_rank.value, (n - 1) * S / n);
            EXPECT_EQ(r->stats.min_sent_per_rank.value, (n - 1) * S / n);
          }
        }
      }
      // Broadcast chain: n-1+K-1 steps; all but the chain's last rank send S.
      if (auto r = run("ring", o, Collective::Broadcast, n, 1, S)) {
        EXPECT_EQ(r->stats.steps, n == 1 ? 0 : n + K - 2);
        EXPECT_EQ(r->stats.max_sent_per_rank.value, n == 1 ? 0 : S);
        EXPECT_EQ(r->stats.min_sent_per_rank.value, 0);
        EXPECT_EQ(total_sent(*r), (n - 1) * S);
      }
    }
  }
}

TEST_P(AlgorithmProperty, DoubleBinaryTree) {
  const int n = GetParam();
  const auto trees = double_binary_tree(n);
  const int h = std::max(tree_height(trees[0]), tree_height(trees[1]));
  if (n % 2 == 0) {  // NCCL's property: a leaf in one tree, interior in at most one
    for (int r = 0; r < n; ++r) {
      const bool leaf0 = trees[0][static_cast<std::size_t>(r)].children.empty();
      const bool leaf1 = trees[1][static_cast<std::size_t>(r)].children.empty();
      EXPECT_TRUE(leaf0 || leaf1) << "n=" << n << " rank " << r;
    }
  }
  for (const auto& [C, K] : {std::pair{1, 1}, std::pair{2, 4}}) {
    AlgorithmOptions o;
    o.channels = C;
    o.chunks = K;
    for (std::int64_t S : sizes_for(n)) {
      auto r = run("tree", o, Collective::Allreduce, n, 1, S);
      if (!r) continue;
      EXPECT_EQ(r->stats.steps, n == 1 ? 0 : 2 * h + K - 1);
      // Bytes: Σ over channels and trees of (has a parent + children) x the tree's half.
      const sched::Slice whole{Bytes(0), Bytes(S)};
      for (int x = 0; x < n && n > 1; ++x) {
        std::int64_t expect = 0;
        for (int c = 0; c < C; ++c) {
          for (int t = 0; t < 2; ++t) {
            const auto& node = trees[static_cast<std::size_t>(t)][static_cast<std::size_t>(x)];
            const std::int64_t half =
                sched::block(sched::block(whole, 4, c, C), 4, t, 2).size.value;
            expect += half * ((node.parent >= 0 ? 1 : 0) +
                              static_cast<std::int64_t>(node.children.size()));
          }
        }
        EXPECT_EQ(r->stats.sent[static_cast<std::size_t>(x)].value, expect)
            << "n=" << n << " rank " << x;
        EXPECT_LE(expect, 2 * S + 16);  // at most ~2S, NCCL's tree figure
      }
    }
  }
}

TEST_P(AlgorithmProperty, HalvingDoubling) {
  const int n = GetParam();
  const int p = static_cast<int>(std::bit_floor(static_cast<unsigned>(n)));
  const int lg = std::countr_zero(static_cast<unsigned>(p));
  for (std::int64_t S : sizes_for(n)) {
    auto r = run("rhd", AlgorithmOptions{}, Collective::Allreduce, n, 1, S);
    if (!r) continue;
    EXPECT_EQ(r->stats.steps, n == 1 ? 0 : 2 * lg + (p == n ? 0 : 2));
    // 2(p-1)·S over the p virtual ranks, plus S for each pre-step and each post-step.
    EXPECT_EQ(total_sent(*r), 2 * (p - 1) * S + 2 * (n - p) * S);
    if (p == n && (S / 4) % n == 0) {
      EXPECT_EQ(r->stats.max_sent_per_rank.value, 2 * (n - 1) * S / n);
    }
  }
}

TEST_P(AlgorithmProperty, ParameterServer) {
  const int n = GetParam();
  const int gph = n % 2 == 0 ? 2 : 1;
  for (std::int64_t S : sizes_for(n)) {
    // Colocated, one shard per rank: each rank pushes S minus its shard and serves its shard to
    // n-1 ranks; in total every shard crosses 2(n-1) links.
    if (auto r = run("ps", AlgorithmOptions{}, Collective::Allreduce, n, gph, S)) {
      EXPECT_EQ(r->stats.steps, n == 1 ? 0 : 2);
      EXPECT_EQ(total_sent(*r), 2 * (n - 1) * S);
    }
    AlgorithmOptions few;
    few.shards = std::min(n, 3);
    if (auto r = run("ps", few, Collective::Allreduce, n, gph, S)) {
      EXPECT_EQ(total_sent(*r), 2 * (n - 1) * S);
    }
    // CPU servers: every GPU pushes all of S; the servers send n·S back in total.
    AlgorithmOptions cpu;
    cpu.ps_placement = PsPlacement::Cpu;
    if (auto r = run("ps", cpu, Collective::Allreduce, n, gph, S)) {
      EXPECT_EQ(r->stats.steps, 2);
      EXPECT_EQ(r->schedule.num_endpoints(), n + n / gph);
      EXPECT_EQ(r->stats.min_sent_per_rank.value, S);
      EXPECT_EQ(r->stats.max_sent_per_rank.value, S);
      EXPECT_EQ(total_sent(*r), 2 * n * S);
    }
  }
}

TEST_P(AlgorithmProperty, Hierarchical) {
  const int n = GetParam();
  for (int G : {1, 2, 4, 8}) {
    if (n % G != 0 || (G == 1 && n > 17)) continue;
    const int H = n / G;
    for (const char* inner : {"ring", "tree", "rhd", "ps"}) {
      AlgorithmOptions o;
      o.inner = *parse_inner_algorithm(inner);
      o.channels = n <= 16 ? 2 : 1;
      o.chunks = n <= 16 ? 2 : 1;
      const int CK = o.chunks;
      for (std::int64_t S : sizes_for(n)) {
        if (n > 32 && S > 4 * (7 * n + 1)) continue;
        auto r = run("hierarchical", o, Collective::Allreduce, n, G, S);
        if (!r || o.inner != AlgoKind::Ring) continue;
        // Intra-host rings move 2(G-1)·S per host; each rail's inner ring 2(H-1)·S/G.
        EXPECT_EQ(total_sent(*r), 2 * H * (G - 1) * S + 2 * (H - 1) * S);
        EXPECT_EQ(r->stats.steps, 2 * (G - 1) * CK + 2 * (H - 1) * CK);
      }
    }
    if (G > 1) {  // inner ps on CPU servers: one CPU endpoint per host
      AlgorithmOptions cpu;
      cpu.inner = AlgoKind::ParameterServer;
      cpu.ps_placement = PsPlacement::Cpu;
      auto r = run("hierarchical", cpu, Collective::Allreduce, n, G, 4 * (7 * n + 1));
      if (r) {
        EXPECT_EQ(r->schedule.num_endpoints(), n + H);
      }
    }
  }
}

TEST_P(AlgorithmProperty, HalvingReduceScatterAndDoublingAllgather) {
  const int n = GetParam();
  const int p = static_cast<int>(std::bit_floor(static_cast<unsigned>(n)));
  const int r = n - p;
  for (int G : {1, 2}) {
    if (n % G != 0) continue;
    for (std::int64_t S : sizes_for(n)) {
      // Each mask m moves m·S in all (every block by m virtual ranks): (p-1)·S, plus the
      // pre- and post-steps: reduce-scatter r·S in and the r folded blocks back, allgather the
      // r folded blocks in and r·S minus them back, so (n-1)·S exactly.
      std::int64_t folded = 0;
      for (int i = 0; i < r; ++i) {
        folded += sched::block(sched::Slice{Bytes(0), Bytes(S)}, 4, 2 * i, n).size.value;
      }
      const int depth = std::countr_zero(static_cast<unsigned>(p)) + (r > 0 ? 2 : 0);
      if (auto rs = run("rhd", AlgorithmOptions{}, Collective::ReduceScatter, n, G, S)) {
        EXPECT_EQ(total_sent(*rs), (n - 1) * S + folded);
        if (S >= 4 * n) {  // every block non-empty (an empty one moves nothing)
          EXPECT_EQ(rs->stats.steps, depth);
        }
      }
      if (auto ag = run("rhd", AlgorithmOptions{}, Collective::Allgather, n, G, S)) {
        EXPECT_EQ(total_sent(*ag), (n - 1) * S);
        if (S >= 4 * n) {
          EXPECT_EQ(ag->stats.steps, depth);
        }
      }
    }
  }
}

TEST_P(AlgorithmProperty, HierarchicalReduceScatterAndAllgather) {
  const int n = GetParam();
  for (int G : {1, 2, 4, 8}) {
    if (n % G != 0 || (G == 1 && n > 17)) continue;
    const int H = n / G;
    AlgorithmOptions o;
    o.channels = n <= 16 ? 2 : 1;
    o.chunks = n <= 16 ? 3 : 1;
    const int K = o.chunks;
    for (Collective c : {Collective::ReduceScatter, Collective::Allgather}) {
      for (std::int64_t S : sizes_for(n)) {
        if (n > 32 && S > 4 * (7 * n + 1)) continue;
        auto r = run("hierarchical", o, c, n, G, S);
        if (!r) continue;
        // Per host, H intra-host rings over the blocks of each target host move (G-1)·S; each
        // rail's ring over its blocks (S/G in all) moves (H-1)·S/G: exactly, on any split.
        EXPECT_EQ(total_sent(*r), H * (G - 1) * S + (H - 1) * S);
        if (S > 0) {
          EXPECT_EQ(r->stats.steps, (G - 1) * K + (H - 1) * K);
        }
      }
    }
  }
  // Across hosts it runs a ring only.
  AlgorithmOptions rhd;
  rhd.inner = AlgoKind::HalvingDoubling;
  auto a = make_algorithm("hierarchical", rhd, Collective::ReduceScatter);
  ASSERT_TRUE(a);
  sched::CollectiveSpec spec;
  spec.collective = Collective::ReduceScatter;
  spec.ranks = 4;
  spec.bytes = Bytes(64);
  auto g = (*a)->generate(spec, *flat_layout(4, 2));
  ASSERT_FALSE(g);
  EXPECT_NE(g.error().message.find("runs a ring across hosts"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Ranks, AlgorithmProperty,
                         ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                           17, 24, 32, 64, 128));

TEST(AlgorithmErrors, UnsupportedAndInvalidRequestsAreClear) {
  auto layout = flat_layout(4, 1);
  sched::CollectiveSpec spec;
  spec.ranks = 4;
  spec.bytes = Bytes(64);
  spec.collective = Collective::ReduceScatter;
  auto tree = make_algorithm("tree", AlgorithmOptions{});
  auto r = (*tree)->generate(spec, *layout);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::Unsupported);
  EXPECT_NE(r.error().message.find("reduce_scatter"), std::string::npos) << r.error().message;

  AlgorithmOptions many;
  many.shards = 5;
  spec.collective = Collective::Allreduce;
  auto ps = make_algorithm("ps", many);
  auto e = (*ps)->generate(spec, *layout);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("5 shards is more than the 4 ranks"), std::string::npos);

  auto unknown = make_algorithm("rong", AlgorithmOptions{});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, Errc::NotFound);
  for (const char* known : {"ring", "tree", "rhd", "ps", "hierarchical", "allgather_ring"}) {
    EXPECT_NE(unknown.error().message.find(known), std::string::npos) << unknown.error().message;
  }
  EXPECT_FALSE(flat_layout(0, 1));
  EXPECT_FALSE(flat_layout(6, 4));  // 6 ranks do not fill hosts of 4
  AlgorithmOptions zero;
  zero.channels = 0;
  auto ring = make_algorithm("ring", zero);
  EXPECT_FALSE((*ring)->generate(spec, *layout));
}

}  // namespace
}  // namespace topotune::algo
