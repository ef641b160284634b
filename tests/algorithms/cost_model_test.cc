// Closed forms against the critical path of the algorithm's own schedule (cost_model.h): the
// per-transfer costs here apply the sharing each closed form documents, derived per algorithm
// in the comments, so a closed form that disagrees with its schedule's structure (steps,
// chunk sizes, dependencies) fails. Sizes divide evenly (the forms are fluid).
#include "algorithms/cost_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

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

// Depth of each `in_tree` transfer among the tree's transfers (-1 for the others).
std::vector<int> tree_stages(const sched::Schedule& s,
                             const std::function<bool(const sched::Transfer&)>& in_tree,
                             int& stages) {
  std::vector<int> stage(s.size(), -1);
  stages = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!in_tree(s.transfers()[i])) continue;
    int d = 0;
    for (TransferId dep : s.deps(TransferId(static_cast<std::int32_t>(i)))) {
      if (stage[dep.index()] >= 0) d = std::max(d, stage[dep.index()] + 1);
    }
    stage[i] = d;
    stages = std::max(stages, d + 1);
  }
  return stage;
}

// Per-transfer costs of a tree phase as its closed form stages it (tree_closed_form.cc),
// re-derived here from the schedule alone: a transfer's stage is its depth among the tree's
// transfers (`in_tree`: the longest chain of tree transfers ending at it); a stage takes
// τ_s = the slowest of its transfers, α + m·b·β (+ r·b·γ for a reduce), m = the stage's
// transfers on the busiest port of its route (sender's and receiver's GPU port in a host,
// NICs across hosts: (host, local / nic_sharing)), r = the stage's reduces into its receiver.
// Every dependency raises the stage and a transfer at stage d has a predecessor at stage d-1,
// so with every stage-s transfer costing τ_s the critical path is exactly Σ τ_s.
std::vector<double> staged_costs(const sched::Schedule& s, const RankLayout& layout,
                                 const CostParams& p,
                                 const std::function<bool(const sched::Transfer&)>& in_tree) {
  int stages = 0;
  const std::vector<int> stage = tree_stages(s, in_tree, stages);
  const int per_nic = static_cast<int>(p.nic_sharing);
  const auto ports = [&](const sched::Transfer& t) {
    const RankId a(t.src.value), b(t.dst.value);
    if (layout.host_of(a) == layout.host_of(b)) {
      return std::pair{"out" + std::to_string(a.value), "in" + std::to_string(b.value)};
    }
    const auto nic = [&](RankId r) {
      return std::to_string(layout.host_of(r)) + "/" +
             std::to_string(layout.local_index(r) / per_nic);
    };
    return std::pair{"nic_out" + nic(a), "nic_in" + nic(b)};
  };
  std::vector<std::map<std::string, int>> load(static_cast<std::size_t>(stages));
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (stage[i] < 0) continue;
    const sched::Transfer& t = s.transfers()[i];
    auto& l = load[static_cast<std::size_t>(stage[i])];
    const auto [out, in] = ports(t);
    ++l[out];
    ++l[in];
    if (t.reduce) ++l["reduce" + std::to_string(t.dst.value)];
  }
  std::vector<double> tau(static_cast<std::size_t>(stages), 0.0);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (stage[i] < 0) continue;
    const sched::Transfer& t = s.transfers()[i];
    auto& l = load[static_cast<std::size_t>(stage[i])];
    const auto [out, in] = ports(t);
    const HopCost& hop = hop_of(s, layout, p, t);
    const double b = t.slice.size.as_double();
    double secs = hop.latency.value + std::max(l[out], l[in]) * b / hop.bandwidth.value;
    if (t.reduce) secs += l["reduce" + std::to_string(t.dst.value)] * b * p.gamma_gpu();
    double& slot = tau[static_cast<std::size_t>(stage[i])];
    slot = std::max(slot, secs);
  }
  std::vector<double> cost(s.size(), -1.0);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (stage[i] >= 0) cost[i] = tau[static_cast<std::size_t>(stage[i])];
  }
  return cost;
}

// Tree-staged transfers (cost >= 0 in `staged`) cost their stage's τ; the others pay their
// level with the given shares.
void expect_closed_form_is_critical_path(const std::string& name, AlgorithmOptions o, int n,
                                         int gph, std::int64_t bytes, Share share,
                                         sched::Collective c = sched::Collective::Allreduce,
                                         bool tree_inside = false, CostParams p = params()) {
  sched::CollectiveSpec spec;
  spec.collective = c;
  spec.ranks = n;
  spec.bytes = Bytes(bytes);
  auto layout = flat_layout(n, gph);
  auto algo = make_algorithm(name, o, c);
  ASSERT_TRUE(algo);
  auto s = (*algo)->generate(spec, *layout);
  ASSERT_TRUE(s) << s.error().message;
  const auto closed = (*algo)->closed_form(spec, *layout, p);
  ASSERT_TRUE(closed);
  const sched::Schedule& sch = *s;
  const RankLayout& lay = *layout;
  std::vector<double> staged;
  if (tree_inside) {
    // The whole schedule is the tree (flat), or its inter-host transfers are (hierarchical).
    const bool flat = name == "tree";
    staged = staged_costs(sch, lay, p, [&](const sched::Transfer& t) {
      return flat || lay.host_of(RankId(t.src.value)) != lay.host_of(RankId(t.dst.value));
    });
  }
  const auto cost = [&](TransferId id, const sched::Transfer& t) {
    if (!staged.empty() && staged[id.index()] >= 0) return Seconds(staged[id.index()]);
    const HopCost& hop = hop_of(sch, lay, p, t);
    const bool intra = &hop == &p.intra;
    const double b = t.slice.size.as_double();
    double secs =
        hop.latency.value + (intra ? share.intra_beta : share.inter_beta) * b / hop.bandwidth.value;
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
      if (n % 4 == 0)
        expect_closed_form_is_critical_path("ring", ck(c, k), n, 4, S, Share{C, C, C, C});
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
      // Broadcast over hosts of 2 GPUs: NVLink and NIC hops alternate; the pipelined chain's
      // critical path pays each hop its own cost (chain_time over the hops).
      if (n % 2 == 0) {
        expect_closed_form_is_critical_path("ring", ck(c, k), n, 2, S, Share{C, C, C, C},
                                            sched::Collective::Broadcast);
      }
    }
  }
}

TEST(ClosedForm, TreeIsItsStagedCriticalPath) {
  // staged_costs above: the form's stages, loads and levels re-derived from the schedule.
  for (int n : {2, 3, 4, 7, 8, 13, 16}) {
    for (const auto& [c, k] : {std::pair{1, 1}, std::pair{1, 4}, std::pair{2, 3}}) {
      const std::int64_t S = 4LL * 2 * c * k * 1000;
      const auto ar = sched::Collective::Allreduce;
      expect_closed_form_is_critical_path("tree", ck(c, k), n, 1, S, Share{}, ar, true);
      // Several GPUs per host: NVLink and NIC stages mix; with 2 GPUs per NIC they share it.
      if (n % 4 == 0) {
        expect_closed_form_is_critical_path("tree", ck(c, k), n, 4, S, Share{}, ar, true);
        CostParams shared = params();
        shared.nic_sharing = 2;
        expect_closed_form_is_critical_path("tree", ck(c, k), n, 4, S, Share{}, ar, true, shared);
      }
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
        o.inner = AlgoKind::DbTree;  // the inner trees (one per rail) staged as the flat tree
        expect_closed_form_is_critical_path("hierarchical", o, G * H, G, S, Share{C, C, 1, 1},
                                            sched::Collective::Allreduce, true);
        o.inner = AlgoKind::HalvingDoubling;
        if ((H & (H - 1)) == 0) {
          expect_closed_form_is_critical_path("hierarchical", o, G * H, G, S, Share{C, C, 1, 1});
        }
        o.inner = AlgoKind::ParameterServer;  // H-1 pushes into each rail server
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
  // The same chain over NVLink, NIC, NVLink hops: chunks of 5e5 bytes take 2 + 5 = 7 us on
  // NVLink and 50 us on the NIC; 7 + 50 + 7 for the first chunk, then one more NIC stage: 114 us.
  EXPECT_NEAR(chain_time({p.intra, p.inter, p.intra}, 1e6, 2).us(), 114.0, 1e-6);
  // Tree, 4 ranks of 1 GPU, K = 1, S = 4e6: each tree moves x = 2e6 bytes per edge. Tree 1 is
  // 1->2, 3->2, 2->0; tree 2 (its mirror) 2->1, 0->1, 1->3. Stage 0 (leaves up): NICs into 2
  // and into 1 carry 2 flows each, and 2 and 1 each reduce two inputs: 10 + 2·160 + 2·4 = 338
  // us. Stage 1 (2->0, 1->3): alone, 10 + 160 + 4 = 174 us. Stage 2 (roots down, 0->2, 3->1):
  // 170 us. Stage 3 (2->1, 2->3, 1->0, 1->2): NICs out of 2 and 1 carry 2: 330 us. Sum 1012 us.
  auto layout = flat_layout(4, 1);
  ASSERT_TRUE(layout);
  EXPECT_NEAR(tree_closed_form(layout->ring(0), 4e6, 1, *layout, p).us(), 1012.0, 1e-6);
}

}  // namespace
}  // namespace topotune::algo
