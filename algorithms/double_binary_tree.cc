#include "algorithms/double_binary_tree.h"

#include <algorithm>

#include "core/memory_budget.h"

namespace topotune::algo {
namespace {

// NCCL's ncclGetBtree: the parent of `rank` in the binary tree over n ranks, -1 for the root.
int btree_parent(int n, int rank) {
  if (rank == 0) return -1;
  int bit = 1;
  while (bit < n && (bit & rank) == 0) bit <<= 1;
  int up = (rank ^ bit) | (bit << 1);
  if (up >= n) up = rank ^ bit;
  return up;
}

std::vector<TreeNode> from_parents(const std::vector<int>& parent) {
  std::vector<TreeNode> tree(parent.size());
  for (std::size_t r = 0; r < parent.size(); ++r) {
    tree[r].parent = parent[r];
    if (parent[r] >= 0)
      tree[static_cast<std::size_t>(parent[r])].children.push_back(static_cast<int>(r));
  }
  return tree;
}

// Positions ordered root first, by depth (ties by position).
std::vector<int> by_depth(const std::vector<TreeNode>& tree) {
  const int n = static_cast<int>(tree.size());
  std::vector<int> depth(static_cast<std::size_t>(n), 0), order(static_cast<std::size_t>(n));
  for (int x = 0; x < n; ++x) {
    order[static_cast<std::size_t>(x)] = x;
    for (int y = tree[static_cast<std::size_t>(x)].parent; y >= 0;
         y = tree[static_cast<std::size_t>(y)].parent) {
      ++depth[static_cast<std::size_t>(x)];
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return depth[static_cast<std::size_t>(a)] < depth[static_cast<std::size_t>(b)];
  });
  return order;
}

void add_one_tree(const PhaseContext& ctx, const std::vector<EndpointId>& order,
                  const std::vector<TreeNode>& tree, sched::Slice region, int chunks, int channel) {
  const int n = static_cast<int>(order.size());
  const std::vector<int> by_depth = algo::by_depth(tree);
  const auto at = [&](int x) { return order[static_cast<std::size_t>(x)]; };
  std::vector<TransferId> up(static_cast<std::size_t>(n)), got(up);
  std::vector<std::vector<TransferId>> down(static_cast<std::size_t>(n));
  for (int x = 0; x < n; ++x)
    down[static_cast<std::size_t>(x)].resize(tree[static_cast<std::size_t>(x)].children.size());
  DepList deps;
  for (int k = 0; k < chunks; ++k) {
    const sched::Slice chunk = part(ctx, region, k, chunks);
    for (auto it = by_depth.rbegin(); it != by_depth.rend(); ++it) {  // leaves first
      const TreeNode& node = tree[static_cast<std::size_t>(*it)];
      if (node.parent < 0) continue;
      deps.clear();
      if (up[static_cast<std::size_t>(*it)].valid())
        deps.push_back(up[static_cast<std::size_t>(*it)]);
      for (int ch : node.children) deps.push_back(up[static_cast<std::size_t>(ch)]);
      if (k == 0) {
        ctx.add_entry(deps, at(*it));
        ctx.add_entry(deps, at(node.parent));
      }
      up[static_cast<std::size_t>(*it)] =
          ctx.builder.add(at(*it), at(node.parent), chunk, true, deps, channel);
    }
    for (int x : by_depth) {  // root first
      const TreeNode& node = tree[static_cast<std::size_t>(x)];
      for (std::size_t i = 0; i < node.children.size(); ++i) {
        deps.clear();
        TransferId& last = down[static_cast<std::size_t>(x)][i];
        if (last.valid()) deps.push_back(last);
        if (node.parent >= 0) {
          deps.push_back(got[static_cast<std::size_t>(x)]);
        } else {
          for (int ch : node.children) deps.push_back(up[static_cast<std::size_t>(ch)]);
        }
        const int child = node.children[i];
        last = ctx.builder.add(at(x), at(child), chunk, false, deps, channel);
        got[static_cast<std::size_t>(child)] = last;
      }
    }
  }
  for (int x = 0; x < n; ++x) {
    ctx.add_exit(at(x), got[static_cast<std::size_t>(x)]);
    for (TransferId t : down[static_cast<std::size_t>(x)]) ctx.add_exit(at(x), t);
  }
}

}  // namespace

std::array<std::vector<TreeNode>, 2> double_binary_tree(int n) {
  std::vector<int> p0(static_cast<std::size_t>(n)), p1(p0);
  for (int r = 0; r < n; ++r) {
    p0[static_cast<std::size_t>(r)] = btree_parent(n, r);
    if (n % 2 == 0) {  // mirror
      const int u = btree_parent(n, n - 1 - r);
      p1[static_cast<std::size_t>(r)] = u < 0 ? -1 : n - 1 - u;
    } else {  // shift by one
      const int u = btree_parent(n, (r - 1 + n) % n);
      p1[static_cast<std::size_t>(r)] = u < 0 ? -1 : (u + 1) % n;
    }
  }
  return {from_parents(p0), from_parents(p1)};
}

int tree_height(const std::vector<TreeNode>& tree) {
  int h = 0;
  for (std::size_t x = 0; x < tree.size(); ++x) {
    int d = 0;
    for (int y = tree[x].parent; y >= 0; y = tree[static_cast<std::size_t>(y)].parent) ++d;
    h = std::max(h, d);
  }
  return h;
}

void add_tree_allreduce(const PhaseContext& ctx, const std::vector<EndpointId>& order,
                        sched::Slice region, int channels, int chunks) {
  const int n = static_cast<int>(order.size());
  if (n == 1) {
    ctx.pass_through(order[0]);
    return;
  }
  const auto trees = double_binary_tree(n);
  for (int c = 0; c < channels; ++c) {
    const sched::Slice channel_part = part(ctx, region, c, channels);
    for (int t = 0; t < 2; ++t) {
      add_one_tree(ctx, order, trees[static_cast<std::size_t>(t)], part(ctx, channel_part, t, 2),
                   chunks, 2 * c + t);
    }
  }
}

std::string DoubleBinaryTree::name() const {
  return "tree(channels=" + std::to_string(options_.channels) +
         ",chunks=" + std::to_string(options_.chunks) + ")";
}

Expected<void> DoubleBinaryTree::supports(const sched::CollectiveSpec& spec,
                                          const RankLayout& layout) const {
  return check_common(spec, layout, {sched::Collective::Allreduce});
}

Expected<sched::Schedule> DoubleBinaryTree::generate(const sched::CollectiveSpec& spec,
                                                     const RankLayout& layout) const {
  TT_TRY_VOID(supports(spec, layout));
  sched::ScheduleBuilder b(spec, name());
  const std::int64_t transfers =
      saturating_product({4, spec.ranks, options_.channels, options_.chunks});
  TT_TRY_VOID(reserve(b, transfers, saturating_mul(3, transfers)));
  std::vector<EndpointId> order;
  for (RankId r : layout.ring(0)) order.push_back(sched::endpoint_of(r));
  add_tree_allreduce(PhaseContext{b, sched::dtype_size(spec.dtype)}, order,
                     sched::Slice{Bytes(0), spec.bytes}, options_.channels, options_.chunks);
  return std::move(b).build();
}

Expected<Seconds> DoubleBinaryTree::closed_form(const sched::CollectiveSpec& spec,
                                                const RankLayout& layout,
                                                const CostParams& params) const {
  TT_TRY_VOID(supports(spec, layout));
  return tree_closed_form(layout.ring(0), spec.bytes.as_double(), options_.chunks, layout, params);
}

}  // namespace topotune::algo
