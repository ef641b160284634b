#pragma once
// AncestorChains: O(log n) "is a an ancestor of b along a chain" queries over a Schedule's DAG,
// the fast path of the interpreter's race checks.
//
// Most orderings the race check must prove follow one of two chains: the data chain (each
// transfer's dependency that delivered into its source: the path a piece of data travels, e.g.
// a ring's block going round) and the sender chain (each transfer's dependency on its source's
// previous send: FIFO order on a link). A ring allgather write must follow the reduce-scatter
// read of the same bytes n-1 steps earlier, which is exactly the data chain between them: a
// plain backwards search visits O(n) transfers per check, O(n^3) for the ring. Each chain gets
// jump pointers (Myers 1983: parent plus one skip pointer per transfer, so that any ancestor
// on the chain is reached in O(log length) hops). A "no" only means "not along one chain": the
// interpreter then searches the DAG.

#include <cstdint>
#include <vector>

#include "algorithms/schedule/schedule.h"

namespace topotune::sched {

class AncestorChains {
 public:
  /// O(transfers + deps) time, 3 ints per transfer and chain.
  explicit AncestorChains(const Schedule& s);

  /// Far ancestors of `b`: its jump pointers on both chains (-1 for none). A search that also
  /// follows them crosses a long chain in O(log length) steps.
  std::int32_t data_jump(std::int32_t b) const { return data_.jump[static_cast<std::size_t>(b)]; }
  std::int32_t sender_jump(std::int32_t b) const {
    return sender_.jump[static_cast<std::size_t>(b)];
  }

  /// True if `a` is `b` or lies on b's data chain or b's sender chain.
  bool on_chain(std::int32_t a, std::int32_t b) const {
    return a == b || walk(data_, a, b) || walk(sender_, a, b);
  }

 private:
  struct Chain {
    std::vector<std::int32_t> parent, jump, depth;
    void push(std::int32_t p);
  };
  static bool walk(const Chain& c, std::int32_t a, std::int32_t b) {
    std::int32_t v = b;  // ids decrease along a chain: stop at the first id <= a
    while (v > a) {
      const std::int32_t j = c.jump[static_cast<std::size_t>(v)];
      v = j >= a ? j : c.parent[static_cast<std::size_t>(v)];
    }
    return v == a;
  }

  Chain data_, sender_;
};

}  // namespace topotune::sched
