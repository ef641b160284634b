#pragma once
// MaxMinSolver: the max-min fair share of resources between variables. No network knowledge.
//
// A linear system in the style of SimGrid's lmm: constraints are resources with a capacity
// (a link's bytes/s, a device's reduction throughput), variables are consumers (flows) that
// each use a set of constraints, and may carry their own upper bound (a per-flow rate cap).
// Every variable uses each of its constraints with weight 1, so the allocation x satisfies
//
//     for every constraint c:   sum of x_v over the active variables v using c  <=  C_c
//     for every variable v:     x_v <= bound_v
//
// and is max-min fair: no x_v can grow without shrinking some x_w <= x_v. It is unique and found
// by progressive filling: raise all unfixed variables together; the first constraint to saturate
// (smallest remaining capacity / unfixed users) fixes its users at that share; a variable whose
// bound is reached first is fixed at its bound; repeat on what is left. Worked example:
//
//     link A (capacity 10) carries flows 1 and 2; link B (capacity 4) carries flows 2 and 3.
//     shares: A 10/2 = 5, B 4/2 = 2  -> B saturates first: x2 = x3 = 2.
//     A has 10 - 2 = 8 left for flow 1 alone -> x1 = 8.
//
// Incremental: adding or removing a variable marks its constraints dirty; solve() re-solves only
// the connected components (constraints linked through active variables) that contain a dirty
// constraint, because an allocation cannot change outside them. The cost of an event is then the
// size of its component, not of the world, which keeps large simulations linear. Two shortcuts
// that change no result: a variable added as the only user of all its constraints is queued as
// itself with its share already computed (min of bound and capacities), and a constraint left
// without users by a removal is not queued (nothing to re-solve).
//
// Deterministic: ties between constraints with equal shares go to the smaller constraint id; the
// order of operations depends only on the order of calls. Variable ids are reused after removal
// (smallest-first is not promised, but the reuse order is deterministic).

#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "simulator/small_vector.h"

namespace topotune::sim {

class MaxMinSolver {
 public:
  /// No bound: the variable is limited by its constraints only.
  static constexpr double kUnbounded = std::numeric_limits<double>::infinity();

  /// Adds a constraint of `capacity` (>= 0, in the caller's unit, e.g. bytes/s); returns its id
  /// (0, 1, 2, ... in order of creation).
  int add_constraint(double capacity);
  std::size_t num_constraints() const { return constraints_.size(); }
  double capacity(int c) const { return constraints_[static_cast<std::size_t>(c)].capacity; }

  /// Adds an active variable using `constraints` (distinct ids) with an upper `bound` (> 0).
  /// Its value is defined after the next solve(). A variable with no constraints and no bound
  /// gets +infinity.
  int add_variable(std::span<const int> constraints, double bound = kUnbounded);
  /// Removes an active variable; its id may be returned by a later add_variable().
  void remove_variable(int v);

  /// Re-solves the components touched since the last call. Returns the variables whose value
  /// changed (new variables included), in a deterministic order; valid until the next call.
  std::span<const int> solve();

  /// The variable's current share (after the last solve()).
  double value(int v) const { return values_[static_cast<std::size_t>(v)]; }
  /// The constraints a variable uses, as given to add_variable().
  std::span<const int> constraints_of(int v) const {
    const Variable& var = variables_[static_cast<std::size_t>(v)];
    return {var.constraints.data(), var.constraints.size()};
  }
  /// Number of active variables using constraint `c`.
  std::size_t users(int c) const { return constraints_[static_cast<std::size_t>(c)].users.size(); }
  std::size_t num_active_variables() const { return active_; }
  /// Whether `v` is a variable id currently in use.
  bool active(int v) const {
    return v >= 0 && static_cast<std::size_t>(v) < variables_.size() &&
           variables_[static_cast<std::size_t>(v)].active;
  }

 private:
  /// A constraint's user: which variable, and which entry of its constraint list is this one.
  struct User {
    int variable;
    int slot;
  };
  // Sizes matter more than anything else here: a step at 1024 p4d hosts touches ~50 k
  // constraints and ~8 k variables in each of several passes, so the hot fields are packed
  // (32 bytes a constraint, 96 a variable) and the filling scratch of the rare multi-flow
  // component lives apart, in fill_ (see docs/simulator.md, "Benchmark" for the measurements).
  struct alignas(32) Constraint {
    SmallVector<User, 2> users;
    double capacity = 0;
  };
  static_assert(sizeof(Constraint) == 32, "the measured layout: two per cache line");
  /// Progressive-filling scratch of a constraint; valid only while it is seen() this epoch.
  struct FillState {
    double remaining = 0;
    int unfixed = 0;
    std::uint32_t version = 0;
  };
  static constexpr std::uint32_t kNoSeed = ~std::uint32_t{0};
  struct alignas(32) Variable {
    std::uint32_t mark = 0;
    std::uint32_t seed = kNoSeed;  ///< index of its entry in dirty_ while fresh and alone
    bool active = false;
    bool fixed = false;
    bool fresh = false;  ///< added since the last solve: always reported as changed
    /// Fresh and, so far, the only user of each of its constraints (see add_variable()).
    bool alone = false;
    SmallVector<int, 6> constraints;  ///< as given to add_variable()
    SmallVector<int, 6> positions;    ///< index of this variable in each constraint's user list
    double bound = kUnbounded;
    double alone_share = 0;  ///< min(bound, its constraints' capacities)
  };
  static_assert(sizeof(Variable) == 96, "the measured layout");

  void next_epoch();
  /// Bit 31 of flags_: the constraint is in dirty_; bits 0-30: its mark.
  static constexpr std::uint32_t kDirty = std::uint32_t{1} << 31;
  /// Whether constraint `c` is already in this solve's component search (mark == epoch_).
  bool seen(int c) const { return (flags_[static_cast<std::size_t>(c)] & ~kDirty) == epoch_; }
  void see(int c) {
    std::uint32_t& f = flags_[static_cast<std::size_t>(c)];
    f = (f & kDirty) | epoch_;
  }
  void mark_dirty(int c) {
    std::uint32_t& f = flags_[static_cast<std::size_t>(c)];
    if ((f & kDirty) == 0) {
      f |= kDirty;
      dirty_.push_back(c);
    }
  }
  void solve_added(int v, std::size_t at);
  void collect_component(int seed);
  void solve_component();
  void start_heap_fill();
  void fill_component();
  void fill_small_component();
  void publish_component();
  void fix_variable(int v, double share, bool heap);
  void push_share(int c);

  std::vector<Constraint> constraints_;
  std::vector<FillState> fill_;  ///< parallel to constraints_
  /// Parallel to constraints_, apart from them so that the dirty scan and the component
  /// search's "seen?" tests read 4 bytes a constraint (dirty bit and mark, see kDirty).
  std::vector<std::uint32_t> flags_;
  std::vector<Variable> variables_;
  /// The variables' values (parallel to variables_): the caller reads every changed one after
  /// a solve, and 8 bytes a variable stay in cache where the variables do not.
  std::vector<double> values_;
  std::vector<double> next_;  ///< parallel to variables_: filling scratch, the value being computed
  std::vector<int> free_variables_;
  std::vector<int> dirty_;
  std::size_t active_ = 0;
  std::uint32_t epoch_ = 0;  ///< < kDirty; on reaching it next_epoch() clears every mark

  // Scratch reused across solves (no allocation in steady state).
  std::vector<int> comp_constraints_;
  std::vector<int> comp_variables_;
  std::vector<int> bounded_;
  std::vector<int> stack_;
  std::vector<int> changed_;
  struct ShareEntry {
    double share;
    int constraint;
    std::uint32_t version;
  };
  /// Min-heap order for std heaps: "a after b" on (share, constraint id). A function object,
  /// not a function, so that the heap algorithms inline it rather than call through a pointer.
  struct LaterEntry {
    bool operator()(const ShareEntry& a, const ShareEntry& b) const {
      return a.share > b.share || (a.share == b.share && a.constraint > b.constraint);
    }
  };
  std::vector<ShareEntry> heap_;
};

}  // namespace topotune::sim
