#include "algorithms/schedule/ancestor_chains.h"

namespace topotune::sched {

// Myers' jump pointers: jump to the parent's jump's jump when the two skips below have the
// same length, else to the parent; this keeps every ancestor O(log depth) hops away.
void AncestorChains::Chain::push(std::int32_t p) {
  if (p < 0) {
    parent.push_back(-1);
    jump.push_back(-1);
    depth.push_back(0);
    return;
  }
  const auto pi = static_cast<std::size_t>(p);
  const std::int32_t jp = jump[pi];
  std::int32_t j = p;
  if (jp >= 0) {
    const std::int32_t jjp = jump[static_cast<std::size_t>(jp)];
    if (jjp >= 0 &&
        depth[pi] - depth[static_cast<std::size_t>(jp)] ==
            depth[static_cast<std::size_t>(jp)] - depth[static_cast<std::size_t>(jjp)]) {
      j = jjp;
    }
  }
  parent.push_back(p);
  jump.push_back(j);
  depth.push_back(depth[pi] + 1);
}

AncestorChains::AncestorChains(const Schedule& s) {
  for (Chain* c : {&data_, &sender_}) {
    c->parent.reserve(s.size());
    c->jump.reserve(s.size());
    c->depth.reserve(s.size());
  }
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Transfer& t = s.transfers()[i];
    std::int32_t data = -1, sender = -1;
    for (TransferId d : s.deps(TransferId(static_cast<std::int32_t>(i)))) {
      const Transfer& dt = s.transfer(d);
      if (dt.dst == t.src && d.value > data) data = d.value;
      if (dt.src == t.src && d.value > sender) sender = d.value;
    }
    data_.push(data);
    sender_.push(sender);
  }
}

}  // namespace topotune::sched
