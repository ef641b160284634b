#pragma once
// UninitAllocator: a std::allocator whose value-less construct() leaves memory untouched, so
// `std::vector<T, UninitAllocator<T>>::resize(n)` makes room without writing it. The Schedule
// uses it for its transfer and dependency arrays: a generator then writes each element once,
// straight into place (TransferWriter), instead of zero-filling hundreds of MB first.
//
// Only for implicit-lifetime types (trivially copyable aggregates such as Transfer and
// TransferId): allocating their storage creates the objects (C++20 [intro.object]), so skipping
// the placement-new of value-initialisation is well defined. Elements resized in and not yet
// written hold indeterminate values: the owner must write them before reading.

#include <memory>
#include <type_traits>
#include <utility>

namespace topotune::sched {

/// std::allocator<T> with a no-op default construct(); see the file comment.
template <class T>
struct UninitAllocator : std::allocator<T> {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "UninitAllocator is for trivially copyable element types only");
  using value_type = T;
  template <class U>
  struct rebind {
    using other = UninitAllocator<U>;
  };

  UninitAllocator() noexcept = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}  // NOLINT: converting, as std::allocator

  /// Default construction does nothing: the caller writes the element later.
  template <class U>
  void construct(U*) noexcept {}
  /// Any other construction is a normal placement-new.
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T, class U>
bool operator==(const UninitAllocator<T>&, const UninitAllocator<U>&) noexcept {
  return true;
}

}  // namespace topotune::sched
