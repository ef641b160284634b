#pragma once
// SmallVector: a vector that keeps its first N elements inside the object (internal to the
// solver). Why: a link has one or two flows and a flow a handful of links, so inline storage
// saves the cache miss of following a heap pointer on every touch, which is what dominates the
// solver's time at thousands of concurrent flows. Past N it moves to the heap, contiguously.

#include <array>
#include <cstddef>
#include <vector>

namespace topotune::sim {

template <class T, std::size_t N>
class SmallVector {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return spilled_ ? heap_.data() : inline_.data(); }
  const T* data() const { return spilled_ ? heap_.data() : inline_.data(); }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }

  void push_back(const T& x) {
    if (!spilled_) {
      if (size_ < N) {
        inline_[size_++] = x;
        return;
      }
      heap_.assign(inline_.begin(), inline_.end());
      spilled_ = true;
    }
    heap_.push_back(x);
    ++size_;
  }
  void pop_back() {
    --size_;
    if (spilled_) heap_.pop_back();
  }
  /// Empties it; heap capacity, if any, is kept for reuse.
  void clear() {
    size_ = 0;
    spilled_ = false;
    heap_.clear();
  }

 private:
  std::array<T, N> inline_{};
  std::size_t size_ = 0;
  bool spilled_ = false;
  std::vector<T> heap_;
};

}  // namespace topotune::sim
