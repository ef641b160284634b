#pragma once
// AlphaBetaTimer: the planner's own closed forms for one allreduce of n bytes on a
// ClusterShape (p = N hosts x G GPUs; b_i effective intra-host bandwidth per GPU, b_n
// effective network bandwidth per host; a_i, a_n step latencies; a_0 per-collective cost).
// It needs nothing but the shape, so the tuner runs (and is tested) without the flow
// simulator; the algorithms module's CostModel and the simulator replace it when present.
//
//   ring (flat, NCCL Ring):  a_0 + 2(p-1) a_x + 2(p-1)/p n / min(b_i, b_n)   (a_x = a_n if N>1;
//                            every host's NICs carry the ring's 2(p-1)/p n; b_n only if N>1)
//   tree (NCCL double binary tree; chain in the host): a_0 + 2(ceil(lg N) a_n + (G-1) a_i)
//                            + max(2n/b_i, 2n/b_n): a GPU's one switch port carries n up and
//                            n down; an interior host of the two trees moves ~2n per direction
//   rhd (Rabenseifner, ranks host-major): per halving step k = 1..lg p' at distance p'/2^k,
//                            n/2^k bytes; a step crossing hosts has all G GPUs of a host on its
//                            NICs (x G / b_n), else x / b_i; doubling mirrors it; p' the power
//                            of two <= p, and p - p' > 0 adds a pre/post step of n each way
//   ps(k) (k CPU servers on k distinct hosts, BytePS/Herring non-colocated bound):
//                            a_0 + 2 a_n + max(G n / b_n, p n / (k b_n)) + (p n / k) / b_cpu
//   hierarchical(inner):     intra reduce-scatter ((G-1) a_i + (G-1)/G n / b_i) + inner across
//                            hosts on the host's n bytes with b_n + intra allgather (same)
//   nccl-default:            min(ring, tree): NCCL takes the faster one per size.
// Channels are not modelled here (a choice with channels > 0 is Unsupported).

#include "autotune/cluster_shape.h"
#include "autotune/collective_timer.h"

namespace topotune::tune {

class AlphaBetaTimer final : public CollectiveTimer {
 public:
  explicit AlphaBetaTimer(ClusterShape shape) : shape_(std::move(shape)) {}
  std::string name() const override { return "alpha-beta closed forms (autotune)"; }
  Expected<Seconds> allreduce(const AlgorithmChoice& algo, Bytes bytes) const override;
  const ClusterShape& shape() const { return shape_; }

 private:
  ClusterShape shape_;
};

}  // namespace topotune::tune
