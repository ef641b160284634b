// The double binary tree's closed form (double_binary_tree.h tree_closed_form): a stage model
// evaluated over the two trees' structure, not a simulation of the schedule.
//
// Stages. Every transfer of add_tree_allreduce sits at a fixed DAG depth, its stage: node x's
// up send of chunk k (children reduce into parents) at height(x) + k, parent p's down send of
// chunk k at H + depth(p) + k, H = the tree's height (the root's down send of chunk k waits for
// its children's up sends of chunk k, stage H - 1 + k). Every dependency goes from a stage to a
// later one, so 2H + K - 1 stages run one after the other if each stage's transfers start
// together. Stage s then takes τ_s = max over its transfers of α + m·x·β + r·x·γ, with
// x = S/(2K) (C channels of S/(2CK) each move together over the same edges), m = the number of
// the stage's transfers on the busiest resource of the transfer's route (the sender's and the
// receiver's GPU port inside a host, the sending and the receiving NIC across hosts; GPUs
// l and l' of a host share a NIC when l / nic_sharing == l' / nic_sharing), and r the number
// of the stage's reductions on the receiver (they share its reduction throughput). Under
// max-min sharing the flows on a stage's most loaded resource get exactly bandwidth / m from
// start to end, so τ_s is the stage's duration when stages do not overlap.
//
// Where the form is exact: when the stages do stay apart in the simulation, i.e. every
// transfer of a stage finishes at the same time or what finishes early has no successor that
// could start early on a busy resource. That holds for K = 1 on one GPU per host for most n
// (see docs/algorithms.md, "Known limits", and tests/simulator/closed_form_test.cc for which).
// Otherwise a max-min fair simulation lets an early finisher's successor start inside the
// stage: it either fills a resource that would have idled (faster than the form) or steals
// bandwidth from a slower transfer on the critical path (slower than the form).
//
// Cost: the set of active transfers only changes at stages first(e) and first(e) + K, i.e. at
// most 4H + 2 times, so the form is O(n·h) whatever K is.

#include <algorithm>
#include <vector>

#include "algorithms/double_binary_tree.h"

namespace topotune::algo {
namespace {

/// One edge of one tree in one direction, all its K chunks: stages first .. first + K - 1.
struct StagedEdge {
  int src_port = 0;  ///< resource the sender uses (GPU out-port or NIC out)
  int dst_port = 0;  ///< resource the receiver uses (GPU in-port or NIC in)
  int dst = 0;       ///< receiving position (its reduction resource)
  bool reduce = false;
  bool intra = false;
  int first = 0;
};

/// Heights (longest path down to a leaf) and depths of every position, and the tree's height.
int heights_and_depths(const std::vector<TreeNode>& tree, std::vector<int>& height,
                       std::vector<int>& depth) {
  const std::size_t n = tree.size();
  height.assign(n, 0);
  depth.assign(n, 0);
  std::vector<std::size_t> order;  // parents before children
  for (std::size_t x = 0; x < n; ++x) {
    if (tree[x].parent < 0) order.push_back(x);
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (int c : tree[order[i]].children) {
      depth[static_cast<std::size_t>(c)] = depth[order[i]] + 1;
      order.push_back(static_cast<std::size_t>(c));
    }
  }
  int h = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int up = tree[*it].parent;
    if (up >= 0) {
      auto& hp = height[static_cast<std::size_t>(up)];
      hp = std::max(hp, height[*it] + 1);
    }
    h = std::max(h, height[*it]);
  }
  return h;
}

/// Both trees' edges, staged, with their ports (resource ids) under `layout`.
std::vector<StagedEdge> staged_edges(const std::vector<RankId>& order, const RankLayout& layout,
                                     const CostParams& params, int& ports) {
  const int n = static_cast<int>(order.size());
  const int per_nic = std::max(1, static_cast<int>(params.nic_sharing));
  const int G = layout.gpus_per_host;
  // Ports: [0, n) GPU out, [n, 2n) GPU in, then NIC out and NIC in per (host, NIC).
  const int nics = layout.hosts * G;
  ports = 2 * n + 2 * nics;
  const auto nic = [&](int pos) {
    const RankId r = order[static_cast<std::size_t>(pos)];
    return layout.host_of(r) * G + layout.local_index(r) / per_nic;
  };
  std::vector<StagedEdge> edges;
  std::vector<int> height, depth;
  for (const auto& tree : double_binary_tree(n)) {
    const int H = heights_and_depths(tree, height, depth);
    for (int x = 0; x < n; ++x) {
      const int p = tree[static_cast<std::size_t>(x)].parent;
      if (p < 0) continue;
      const bool intra = layout.host_of(order[static_cast<std::size_t>(x)]) ==
                         layout.host_of(order[static_cast<std::size_t>(p)]);
      const auto edge = [&](int from, int to, bool reduce, int first) {
        if (intra) return StagedEdge{from, n + to, to, reduce, true, first};
        return StagedEdge{2 * n + nic(from), 2 * n + nics + nic(to), to, reduce, false, first};
      };
      edges.push_back(edge(x, p, true, height[static_cast<std::size_t>(x)]));
      edges.push_back(edge(p, x, false, H + depth[static_cast<std::size_t>(p)]));
    }
  }
  return edges;
}

}  // namespace

Seconds tree_closed_form(const std::vector<RankId>& order, double bytes, int chunks,
                         const RankLayout& layout, const CostParams& params) {
  const int n = static_cast<int>(order.size());
  if (n <= 1) return Seconds(0);
  int ports = 0;
  const std::vector<StagedEdge> edges = staged_edges(order, layout, params, ports);
  // Stages where the set of active edges changes; between two of them every stage is alike.
  std::vector<int> marks;
  for (const StagedEdge& e : edges) {
    marks.push_back(e.first);
    marks.push_back(e.first + chunks);
  }
  std::sort(marks.begin(), marks.end());
  marks.erase(std::unique(marks.begin(), marks.end()), marks.end());
  const double x = bytes / (2.0 * chunks);
  std::vector<int> load(static_cast<std::size_t>(ports)), reducing(static_cast<std::size_t>(n));
  double total = 0.0;
  for (std::size_t i = 0; i + 1 < marks.size(); ++i) {
    const int s = marks[i];
    std::fill(load.begin(), load.end(), 0);
    std::fill(reducing.begin(), reducing.end(), 0);
    const auto active = [&](const StagedEdge& e) { return e.first <= s && s < e.first + chunks; };
    for (const StagedEdge& e : edges) {
      if (!active(e)) continue;
      ++load[static_cast<std::size_t>(e.src_port)];
      ++load[static_cast<std::size_t>(e.dst_port)];
      if (e.reduce) ++reducing[static_cast<std::size_t>(e.dst)];
    }
    double stage = 0.0;
    for (const StagedEdge& e : edges) {
      if (!active(e)) continue;
      const HopCost& hop = e.intra ? params.intra : params.inter;
      const int m = std::max(load[static_cast<std::size_t>(e.src_port)],
                             load[static_cast<std::size_t>(e.dst_port)]);
      double t = hop.latency.value + m * x / hop.bandwidth.value;
      if (e.reduce) t += reducing[static_cast<std::size_t>(e.dst)] * x * params.gamma_gpu();
      stage = std::max(stage, t);
    }
    total += stage * (marks[i + 1] - s);
  }
  return Seconds(total);
}

}  // namespace topotune::algo
