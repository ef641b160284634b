#include "algorithms/schedule/rank_set_pool.h"

#include <bit>

namespace topotune::sched {

RankSetPool::RankSetPool(int ranks)
    : ranks_(ranks), words_((ranks + 63) / 64 > 0 ? (ranks + 63) / 64 : 1) {
  scratch_.assign(static_cast<std::size_t>(words_), 0);
  intern(scratch_.data());  // id 0: the empty set
}

int RankSetPool::intern(const std::uint64_t* w) {
  std::string key(reinterpret_cast<const char*>(w), static_cast<std::size_t>(words_) * 8);
  auto [it, inserted] = index_.try_emplace(std::move(key), static_cast<int>(data_.size() / words_));
  if (inserted) data_.insert(data_.end(), w, w + words_);
  return it->second;
}

int RankSetPool::singleton(int r) {
  scratch_.assign(static_cast<std::size_t>(words_), 0);
  scratch_[static_cast<std::size_t>(r / 64)] |= std::uint64_t{1} << (r % 64);
  return intern(scratch_.data());
}

int RankSetPool::full() {
  scratch_.assign(static_cast<std::size_t>(words_), 0);
  for (int r = 0; r < ranks_; ++r)
    scratch_[static_cast<std::size_t>(r / 64)] |= std::uint64_t{1} << (r % 64);
  return intern(scratch_.data());
}

int RankSetPool::unite(int a, int b) {
  if (a == b || b == kEmpty) return a;
  if (a == kEmpty) return b;
  if (a > b) std::swap(a, b);
  const std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b);
  if (auto it = unions_.find(key); it != unions_.end()) return it->second;
  for (int i = 0; i < words_; ++i)
    scratch_[static_cast<std::size_t>(i)] = words(a)[i] | words(b)[i];
  const int id = intern(scratch_.data());
  unions_.emplace(key, id);
  return id;
}

bool RankSetPool::disjoint(int a, int b) const {
  if (a == kEmpty || b == kEmpty) return true;
  for (int i = 0; i < words_; ++i) {
    if ((words(a)[i] & words(b)[i]) != 0) return false;
  }
  return true;
}

bool RankSetPool::contains(int set, int r) const {
  return ((words(set)[r / 64] >> (r % 64)) & 1U) != 0;
}

int RankSetPool::count(int set) const {
  int n = 0;
  for (int i = 0; i < words_; ++i) n += std::popcount(words(set)[i]);
  return n;
}

std::vector<int> RankSetPool::members(int set) const {
  std::vector<int> out;
  for (int r = 0; r < ranks_; ++r) {
    if (contains(set, r)) out.push_back(r);
  }
  return out;
}

std::string RankSetPool::describe(int set) const {
  const std::vector<int> m = members(set);
  std::string s = "{";
  for (std::size_t i = 0; i < m.size() && i < 8; ++i) {
    if (i > 0) s += ",";
    s += std::to_string(m[i]);
  }
  if (m.size() > 8) s += ",... " + std::to_string(m.size()) + " ranks";
  return s + "}";
}

}  // namespace topotune::sched
