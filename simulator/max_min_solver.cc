#include "simulator/max_min_solver.h"

#include <algorithm>
#include <cmath>

#include "core/assert.h"

namespace topotune::sim {
namespace {

// Components up to this many constraints are filled by linear scans rather than a heap.
constexpr std::size_t kSmallComponent = 16;

// Min-heap order on (share, constraint id): the smallest share saturates first and equal
// shares go to the smaller id, so the result does not depend on heap internals.
bool later(double share_a, int c_a, double share_b, int c_b) {
  return share_a > share_b || (share_a == share_b && c_a > c_b);
}

}  // namespace

int MaxMinSolver::add_constraint(double capacity) {
  TT_ASSERT(capacity >= 0 && !std::isnan(capacity), "bad capacity %g", capacity);
  Constraint c;
  c.capacity = capacity;
  constraints_.push_back(std::move(c));
  fill_.emplace_back();
  flags_.push_back(0);
  return static_cast<int>(constraints_.size()) - 1;
}

int MaxMinSolver::add_variable(std::span<const int> constraints, double bound) {
  TT_ASSERT(bound > 0, "bound must be positive, got %g", bound);
  int v;
  if (!free_variables_.empty()) {
    v = free_variables_.back();
    free_variables_.pop_back();
  } else {
    v = static_cast<int>(variables_.size());
    variables_.emplace_back();
    values_.push_back(0);
    next_.push_back(0);
  }
  Variable& var = variables_[static_cast<std::size_t>(v)];
  var.constraints.clear();
  var.positions.clear();
  var.bound = bound;
  values_[static_cast<std::size_t>(v)] = 0;
  var.active = true;
  var.fresh = true;
  var.alone = true;
  double share = bound;
  for (int c : constraints) {
    TT_ASSERT(c >= 0 && static_cast<std::size_t>(c) < constraints_.size(), "bad constraint %d", c);
    Constraint& con = constraints_[static_cast<std::size_t>(c)];
    if (!con.users.empty() || (flags_[static_cast<std::size_t>(c)] & kDirty) != 0) {
      var.alone = false;
      // Users of a constraint that already had two or more are not alone (the later one
      // cleared the earlier's flag): only a single user can still be.
      if (con.users.size() == 1)
        variables_[static_cast<std::size_t>(con.users[0].variable)].alone = false;
    }
    share = std::min(share, con.capacity);
    const int slot = static_cast<int>(var.constraints.size());
    var.constraints.push_back(c);
    var.positions.push_back(static_cast<int>(con.users.size()));
    con.users.push_back({v, slot});
  }
  var.alone_share = share;
  if (var.alone) {
    // Queued as itself at the place its first constraint would take (see solve()).
    var.seed = static_cast<std::uint32_t>(dirty_.size());
    dirty_.push_back(-1 - v);
  } else {
    var.seed = kNoSeed;
    for (int c : constraints) mark_dirty(c);
  }
  ++active_;
  return v;
}

void MaxMinSolver::remove_variable(int v) {
  Variable& var = variables_[static_cast<std::size_t>(v)];
  TT_ASSERT(var.active, "variable %d is not active", v);
  for (std::size_t k = 0; k < var.constraints.size(); ++k) {
    const int c = var.constraints[k];
    const int position = var.positions[k];
    Constraint& con = constraints_[static_cast<std::size_t>(c)];
    // Swap-remove, then tell the moved user where it now sits.
    const User moved = con.users.back();
    con.users[static_cast<std::size_t>(position)] = moved;
    variables_[static_cast<std::size_t>(moved.variable)]
        .positions[static_cast<std::size_t>(moved.slot)] = position;
    con.users.pop_back();
    // A constraint left without users has nothing to re-solve; not queuing it saves a cache
    // miss per link when a whole step's flows end together (the usual case in a collective).
    if (!con.users.empty()) mark_dirty(c);
  }
  var.constraints.clear();
  var.positions.clear();
  var.active = false;
  var.fresh = false;
  free_variables_.push_back(v);
  --active_;
}

std::span<const int> MaxMinSolver::solve() {
  changed_.clear();
  next_epoch();
  for (std::size_t i = 0; i < dirty_.size(); ++i) {
    const int d = dirty_[i];
    if (d < 0) {
      solve_added(-1 - d, i);
      continue;
    }
    flags_[static_cast<std::size_t>(d)] &= ~kDirty;
    // Already re-solved as part of an earlier component, or left without users since it was
    // queued (two flows sharing a NIC end together: the first removal queues the NIC's links,
    // the second empties them): a component of no variable changes nothing.
    if (seen(d) || constraints_[static_cast<std::size_t>(d)].users.empty()) continue;
    collect_component(d);
    solve_component();
  }
  dirty_.clear();
  return changed_;
}

// A variable queued by add_variable() as the only user of all its constraints. If it still is,
// its share is min(bound, capacities), computed when it was added: this skips a pass over its
// constraints, which at a thousand hosts is a cache miss per link per flow. If a later
// add_variable() joined one of its constraints, it is solved from its first constraint, exactly
// as if that constraint had been queued here, so the order of results does not change.
void MaxMinSolver::solve_added(int v, std::size_t at) {
  Variable& var = variables_[static_cast<std::size_t>(v)];
  // Removed since, re-added under the same id (it then has a later entry), or solved already.
  if (!var.active || !var.fresh || var.seed != at || var.mark == epoch_) return;
  if (!var.alone) {
    collect_component(var.constraints[0]);
    solve_component();
    return;
  }
  var.mark = epoch_;
  values_[static_cast<std::size_t>(v)] = var.alone_share;
  var.fresh = false;
  var.alone = false;
  changed_.push_back(v);
}

// Marks are 31 bits to keep the flags small; after 2^31 - 1 solves every mark is cleared so
// that no stale mark can equal the new epoch.
void MaxMinSolver::next_epoch() {
  if (++epoch_ != kDirty) return;
  for (std::uint32_t& f : flags_) f &= kDirty;
  for (Variable& v : variables_) v.mark = 0;
  epoch_ = 1;
}

void MaxMinSolver::collect_component(int seed) {
  comp_constraints_.clear();
  comp_variables_.clear();
  stack_.clear();
  see(seed);
  stack_.push_back(seed);
  while (!stack_.empty()) {
    const int c = stack_.back();
    stack_.pop_back();
    comp_constraints_.push_back(c);
    for (const User& u : constraints_[static_cast<std::size_t>(c)].users) {
      Variable& var = variables_[static_cast<std::size_t>(u.variable)];
      if (var.mark == epoch_) continue;
      var.mark = epoch_;
      comp_variables_.push_back(u.variable);
      for (int c2 : var.constraints) {
        if (seen(c2)) continue;
        see(c2);
        stack_.push_back(c2);
      }
    }
  }
}

void MaxMinSolver::push_share(int c) {
  const FillState& con = fill_[static_cast<std::size_t>(c)];
  heap_.push_back({con.remaining / con.unfixed, c, con.version});
  std::push_heap(heap_.begin(), heap_.end(), LaterEntry{});
}

void MaxMinSolver::fix_variable(int v, double share, bool heap) {
  Variable& var = variables_[static_cast<std::size_t>(v)];
  var.fixed = true;
  next_[static_cast<std::size_t>(v)] = share;
  for (int c : var.constraints) {
    FillState& con = fill_[static_cast<std::size_t>(c)];
    // Rounding may leave a saturated constraint a hair below zero; it has nothing left.
    con.remaining = std::max(0.0, con.remaining - share);
    --con.unfixed;
    ++con.version;
    if (heap && con.unfixed > 0) push_share(c);
  }
}

void MaxMinSolver::solve_component() {
  if (comp_variables_.size() <= 1) {
    // Common case (a flow alone on its links): no sharing, the share is the tightest capacity.
    for (int v : comp_variables_) {
      Variable& var = variables_[static_cast<std::size_t>(v)];
      double share = var.bound;
      for (int c : var.constraints) {
        share = std::min(share, constraints_[static_cast<std::size_t>(c)].capacity);
      }
      double& value = values_[static_cast<std::size_t>(v)];
      if (var.fresh || share != value) changed_.push_back(v);
      value = share;
      var.fresh = false;
    }
    return;
  }
  if (comp_constraints_.size() <= kSmallComponent) {
    fill_small_component();
  } else {
    fill_component();
  }
}

// Resets the component's constraints and variables for filling; heap of shares; bounds sorted.
void MaxMinSolver::start_heap_fill() {
  heap_.clear();
  for (int c : comp_constraints_) {
    const Constraint& con = constraints_[static_cast<std::size_t>(c)];
    FillState& f = fill_[static_cast<std::size_t>(c)];
    f.remaining = con.capacity;
    f.unfixed = static_cast<int>(con.users.size());
    ++f.version;
    if (f.unfixed > 0) heap_.push_back({f.remaining / f.unfixed, c, f.version});
  }
  std::make_heap(heap_.begin(), heap_.end(), LaterEntry{});
  bounded_.clear();
  for (int v : comp_variables_) {
    Variable& var = variables_[static_cast<std::size_t>(v)];
    var.fixed = false;
    if (var.bound != kUnbounded) bounded_.push_back(v);
  }
  std::sort(bounded_.begin(), bounded_.end(), [this](int a, int b) {
    const double ba = variables_[static_cast<std::size_t>(a)].bound;
    const double bb = variables_[static_cast<std::size_t>(b)].bound;
    return ba < bb || (ba == bb && a < b);
  });
}

// Progressive filling with a heap of constraint shares (lazy: stale entries are skipped by
// version) and the bounded variables sorted by bound.
void MaxMinSolver::fill_component() {
  start_heap_fill();
  std::size_t next_bounded = 0;
  for (;;) {
    while (!heap_.empty()) {
      const ShareEntry& top = heap_.front();
      const FillState& con = fill_[static_cast<std::size_t>(top.constraint)];
      if (top.version == con.version && con.unfixed > 0) break;
      std::pop_heap(heap_.begin(), heap_.end(), LaterEntry{});
      heap_.pop_back();
    }
    while (next_bounded < bounded_.size() &&
           variables_[static_cast<std::size_t>(bounded_[next_bounded])].fixed) {
      ++next_bounded;
    }
    const bool have_bound = next_bounded < bounded_.size();
    if (heap_.empty() && !have_bound) break;
    const double share = heap_.empty() ? kUnbounded : heap_.front().share;
    if (have_bound) {
      const int v = bounded_[next_bounded];
      if (variables_[static_cast<std::size_t>(v)].bound <= share) {
        fix_variable(v, variables_[static_cast<std::size_t>(v)].bound, true);
        continue;
      }
    }
    const int c = heap_.front().constraint;
    std::pop_heap(heap_.begin(), heap_.end(), LaterEntry{});
    heap_.pop_back();
    // The saturated constraint's unfixed users all get its share; fixing only edits counters,
    // so iterating its user list here is safe.
    for (const User& u : constraints_[static_cast<std::size_t>(c)].users) {
      if (!variables_[static_cast<std::size_t>(u.variable)].fixed) {
        fix_variable(u.variable, share, true);
      }
    }
  }
  publish_component();
}

void MaxMinSolver::publish_component() {
  for (int v : comp_variables_) {
    Variable& var = variables_[static_cast<std::size_t>(v)];
    double& value = values_[static_cast<std::size_t>(v)];
    const double next = next_[static_cast<std::size_t>(v)];
    if (var.fresh || next != value) changed_.push_back(v);
    value = next;
    var.fresh = false;
  }
}

// The same progressive filling as fill_component(), with linear scans instead of a heap: for a
// handful of constraints (two GPUs sharing a NIC) a scan is cheaper than heap upkeep. Same tie
// rules (smallest share, then smallest constraint id; a bound <= the share first, smallest
// bound then id), hence the same values bit for bit.
void MaxMinSolver::fill_small_component() {
  for (int c : comp_constraints_) {
    const Constraint& con = constraints_[static_cast<std::size_t>(c)];
    fill_[static_cast<std::size_t>(c)] = {con.capacity, static_cast<int>(con.users.size()),
                                          fill_[static_cast<std::size_t>(c)].version};
  }
  for (int v : comp_variables_) variables_[static_cast<std::size_t>(v)].fixed = false;
  for (;;) {
    int best_c = -1;
    double best_share = kUnbounded;
    for (int c : comp_constraints_) {
      const FillState& con = fill_[static_cast<std::size_t>(c)];
      if (con.unfixed == 0) continue;
      const double share = con.remaining / con.unfixed;
      if (best_c < 0 || later(best_share, best_c, share, c)) {
        best_c = c;
        best_share = share;
      }
    }
    int best_v = -1;
    for (int v : comp_variables_) {
      const Variable& var = variables_[static_cast<std::size_t>(v)];
      if (var.fixed || var.bound == kUnbounded) continue;
      const double bound = variables_[static_cast<std::size_t>(best_v < 0 ? v : best_v)].bound;
      if (best_v < 0 || var.bound < bound || (var.bound == bound && v < best_v)) best_v = v;
    }
    if (best_v >= 0 && variables_[static_cast<std::size_t>(best_v)].bound <= best_share) {
      fix_variable(best_v, variables_[static_cast<std::size_t>(best_v)].bound, false);
      continue;
    }
    if (best_c < 0) break;
    for (const User& u : constraints_[static_cast<std::size_t>(best_c)].users) {
      if (!variables_[static_cast<std::size_t>(u.variable)].fixed) {
        fix_variable(u.variable, best_share, false);
      }
    }
  }
  publish_component();
}

}  // namespace topotune::sim
