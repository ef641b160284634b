#pragma once
// PhaseContext: what the building blocks of the generators share when they add one phase of a
// schedule (a ring pass, a tree, a halving-doubling, a parameter server) on a group of
// endpoints and a region of the buffer. Internal to algorithms/.
//
// Composition rule (how hierarchical chains phases without races): `entry[e]` lists transfers
// that every transfer of the phase touching endpoint e must (transitively) depend on; a phase
// fills `exit[e]` with transfers such that every transfer of the phase touching e is one of
// them or an ancestor of one. An endpoint the phase does not touch passes its entry through.
//
// Reduced generation (sched::ReducedSchedule): with `shift_ranks` > 0 the phase writes only the
// transfers sent by ranks below it, and the lists are kept for those ranks only: rank e's
// lists are its representative's (e mod shift_ranks), in representative ids.

#include <vector>

#include "algorithms/schedule/schedule.h"

namespace topotune::algo {

using DepList = std::vector<TransferId>;

/// Per-endpoint dependency lists, grown on demand (CPU endpoints are added while building).
class EndpointDeps {
 public:
  DepList& operator[](EndpointId e) {
    if (e.index() >= lists_.size()) lists_.resize(e.index() + 1);
    return lists_[e.index()];
  }
  const DepList& get(EndpointId e) const {
    return e.index() < lists_.size() ? lists_[e.index()] : empty_;
  }

 private:
  std::vector<DepList> lists_;
  DepList empty_;
};

struct PhaseContext {
  sched::ScheduleBuilder& builder;
  int elem = 4;                         ///< element size in bytes: slices are split on elements
  const EndpointDeps* entry = nullptr;  ///< null: the phase starts the schedule
  EndpointDeps* exit = nullptr;         ///< null: nobody chains after this phase
  int shift_ranks = 0;                  ///< > 0: reduced generation by this shift (see above)

  /// The endpoint whose lists stand for `e`'s: itself, or its representative when reduced.
  EndpointId representative(EndpointId e) const {
    return shift_ranks > 0 ? EndpointId(e.value % shift_ranks) : e;
  }
  void add_entry(DepList& deps, EndpointId e) const {
    if (entry != nullptr) {
      const DepList& in = entry->get(representative(e));
      deps.insert(deps.end(), in.begin(), in.end());
    }
  }
  void add_exit(EndpointId e, TransferId t) const {
    if (exit != nullptr && t.valid()) (*exit)[e].push_back(t);
  }
  /// For an endpoint the phase leaves untouched.
  void pass_through(EndpointId e) const {
    if (exit != nullptr && entry != nullptr) {
      const DepList& in = entry->get(e);
      DepList& out = (*exit)[e];
      out.insert(out.end(), in.begin(), in.end());
    }
  }
};

/// Part i of n of `whole`, element-aligned (sched::block on the context's element size).
inline sched::Slice part(const PhaseContext& ctx, sched::Slice whole, int i, int n) {
  return sched::block(whole, ctx.elem, i, n);
}

}  // namespace topotune::algo
