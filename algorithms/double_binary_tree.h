#pragma once
// Double binary tree allreduce (NCCL 2.4's Tree; Sanders, Speck & Träff 2009).
//
// Construction (NCCL's ncclGetBtree/ncclGetDtree, over ring positions 0..n-1 of
// layout.ring(0)): tree 1 is the binary tree in which position r's parent is found from r's
// lowest set bit (position 0 is the root, with one child); tree 2 is its mirror (r -> n-1-r)
// when n is even and its shift by one (r -> r+1 mod n) when n is odd, so that for even n every
// position is a leaf in one tree and interior in at most one. Each tree carries half of each
// channel's part of the buffer: reduce up to the root (children reduce into their parent),
// then broadcast down, pipelined in K chunks (a node forwards chunk k up once all its children's
// chunk k arrived; sends on one link are FIFO).
// Steps (DAG depth): 2h + K - 1, h = the larger tree height (⌊log2 n⌋ or so).
// Transfers: 2(n-1)·2·K·C (each tree: n-1 edges, up and down).
// Bytes sent per rank: Σ over the two trees of (1 if it has a parent + number of children) ·
//   S/2; 2S for a rank interior (2 children) in one tree and a leaf in the other.
// Closed form (tree_closed_form, tree_closed_form.cc): the 2h + K - 1 stages (a transfer's
//   stage is its DAG depth) one after the other, stage s taking the slowest of its transfers,
//   α + m·(S/2K)·β + r·(S/2K)·γ with m the stage's transfers on the busiest NIC or GPU port of
//   the transfer's route and r the stage's reductions on its receiver.

#include <array>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/phase_context.h"

namespace topotune::algo {

/// One node of a tree over positions 0..n-1; -1 for none.
struct TreeNode {
  int parent = -1;
  std::vector<int> children;
};

/// NCCL's two complementary binary trees over n positions (tree 0 rooted at 0).
std::array<std::vector<TreeNode>, 2> double_binary_tree(int n);
/// Height (edges from the root to the deepest leaf) of a tree.
int tree_height(const std::vector<TreeNode>& tree);

/// The tree closed form over ranks `order` (positions): Σ over the 2h + K - 1 stages of the
/// slowest transfer of the stage, each at α + m·(S/2K)·β (+ r·(S/2K)·γ for a reduce) of its
/// level, m = the stage's transfers on the busiest port of its route (GPU port in a host; NIC
/// across hosts, local GPUs l / nic_sharing sharing one), r = the stage's reductions on its
/// receiver. Independent of the channel count (C channels move S/(2CK) each, together).
/// Exact against a max-min simulation when the stages stay apart; see tree_closed_form.cc.
Seconds tree_closed_form(const std::vector<RankId>& order, double bytes, int chunks,
                         const RankLayout& layout, const CostParams& params);

class DoubleBinaryTree final : public Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string name() const override;
  Expected<void> supports(const sched::CollectiveSpec& spec,
                          const RankLayout& layout) const override;
  Expected<sched::Schedule> generate(const sched::CollectiveSpec& spec,
                                     const RankLayout& layout) const override;
  Expected<Seconds> closed_form(const sched::CollectiveSpec& spec, const RankLayout& layout,
                                const CostParams& params) const override;
};

/// Double binary tree allreduce of `region` over `order` (positions), C channels x K chunks;
/// channel c's tree t uses channel id 2c + t.
void add_tree_allreduce(const PhaseContext& ctx, const std::vector<EndpointId>& order,
                        sched::Slice region, int channels, int chunks);

}  // namespace topotune::algo
