#pragma once
// SmallVector: a vector that keeps its first N elements inside the object (internal to the
// solver). Why: a link has one or two flows and a flow a handful of links, so inline storage
// saves the cache miss of following a heap pointer on every touch, which is what dominates the
// solver's time at thousands of concurrent flows. Past N it moves to the heap, contiguously.
//
// Compact on purpose: 8 bytes of header (32-bit size and capacity) and a union of the inline
// elements with the heap pointer, so a SmallVector<int, 6> is 32 bytes and a one-element one
// 16. At 1024 p4d hosts the solver holds 59 k constraints and touches ~50 k of them per step:
// the bytes per constraint decide whether that fits in the caches (see
// docs/simulator.md, "Benchmark"). Elements must be trivially copyable.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/assert.h"

namespace topotune::sim {

template <class T, std::uint32_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds trivially copyable types");
  static_assert(N >= 1);

 public:
  SmallVector() = default;
  SmallVector(const SmallVector& o) { copy_from(o); }
  SmallVector(SmallVector&& o) noexcept { steal(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      release();
      copy_from(o);
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return spilled() ? heap_ : inline_; }
  const T* data() const { return spilled() ? heap_ : inline_; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }

  void push_back(const T& x) {
    if (size_ == capacity_) grow();
    data()[size_++] = x;
  }
  void pop_back() { --size_; }
  /// Empties it; heap capacity, if any, is kept for reuse.
  void clear() { size_ = 0; }

 private:
  bool spilled() const { return capacity_ > N; }
  void grow() {
    TT_ASSERT(capacity_ < (std::uint32_t{1} << 31), "SmallVector too large");
    const std::uint32_t capacity = capacity_ * 2;
    T* p = new T[capacity];
    std::copy(data(), data() + size_, p);
    release();
    heap_ = p;
    capacity_ = capacity;
  }
  void release() {
    if (spilled()) delete[] heap_;
    capacity_ = N;
  }
  void copy_from(const SmallVector& o) {
    if (o.size_ > N) {
      heap_ = new T[o.size_];
      capacity_ = o.size_;
    }
    std::copy(o.data(), o.data() + o.size_, data());
    size_ = o.size_;
  }
  void steal(SmallVector& o) {
    size_ = o.size_;
    capacity_ = o.capacity_;
    if (o.spilled()) {
      heap_ = o.heap_;
    } else {
      std::copy(o.inline_, o.inline_ + o.size_, inline_);
    }
    o.size_ = 0;
    o.capacity_ = N;
  }

  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = N;  ///< > N: the elements live at heap_
  // heap_ starts null so that no path reads the union before it is written (GCC's
  // -Wmaybe-uninitialized sees steal() of a default-constructed vector in ASan builds).
  union {
    T inline_[N];
    T* heap_ = nullptr;
  };
};

}  // namespace topotune::sim
