#pragma once
// HalfAlgorithm: what the generators of the two halves of an allreduce share (ring_half.h,
// hierarchical_half.h, halving_doubling_half.h): each is one class for reduce-scatter and
// allgather, which differ only in the direction of the data (reduce into a block's owner, or
// copy from it).

#include "algorithms/algorithm.h"

namespace topotune::algo {

class HalfAlgorithm : public Algorithm {
 public:
  enum class Kind { ReduceScatter, Allgather };

  HalfAlgorithm(AlgorithmOptions options, Kind kind) : Algorithm(options), kind_(kind) {}

 protected:
  bool reduce() const { return kind_ == Kind::ReduceScatter; }
  /// The collective this half generates.
  sched::Collective collective() const {
    return reduce() ? sched::Collective::ReduceScatter : sched::Collective::Allgather;
  }

 private:
  Kind kind_;
};

}  // namespace topotune::algo
