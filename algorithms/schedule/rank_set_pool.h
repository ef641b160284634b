#pragma once
// RankSetPool: interned sets of ranks (bitsets), the values the symbolic interpreter tracks.
//
// Schedules manipulate few distinct sets (a ring produces O(n^2) contiguous runs of ranks) but
// touch them millions of times, so every set is stored once and named by a small integer; the
// union of two sets is memoised. Set 0 is the empty set.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace topotune::sched {

/// A pool of interned rank sets over ranks 0..ranks-1. Ids are stable for the pool's lifetime.
class RankSetPool {
 public:
  explicit RankSetPool(int ranks);

  static constexpr int kEmpty = 0;
  /// The set {r}.
  int singleton(int r);
  /// The set {0, ..., ranks-1}.
  int full();
  /// a ∪ b.
  int unite(int a, int b);
  /// True when a and b share no rank.
  bool disjoint(int a, int b) const;
  bool contains(int set, int r) const;
  int count(int set) const;
  /// The ranks in `set`, ascending.
  std::vector<int> members(int set) const;
  /// "{0,1,5}" or "{0,1,2,... 40 ranks}" for messages.
  std::string describe(int set) const;
  int ranks() const { return ranks_; }

 private:
  int intern(const std::uint64_t* words);
  const std::uint64_t* words(int set) const {
    return &data_[static_cast<std::size_t>(set) * words_];
  }

  int ranks_;
  int words_;
  std::vector<std::uint64_t> data_;
  std::unordered_map<std::string, int> index_;
  std::unordered_map<std::uint64_t, int> unions_;
  std::vector<std::uint64_t> scratch_;
};

}  // namespace topotune::sched
