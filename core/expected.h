#pragma once
// Expected<T>: a value or an Error. A subset of C++23 std::expected, spelled the same way, so
// that moving to C++23 is an alias change. (GCC 12 has std::expected only with -std=c++23 and
// Debian 12 has no tl-expected package.)

#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "core/assert.h"
#include "core/error.h"

namespace topotune {

/// Wraps an Error for returning from a function whose result is Expected<T>.
class Unexpected {
 public:
  explicit Unexpected(Error e) : error_(std::move(e)) {}
  Error& error() & { return error_; }
  Error&& error() && { return std::move(error_); }

 private:
  Error error_;
};

/// Shorthand: `return fail(Errc::NotFound, "unknown instance 'p9'");`
inline Unexpected fail(Errc code, std::string message) {
  return Unexpected(Error(code, std::move(message)));
}

template <class T>
class [[nodiscard]] Expected {
 public:
  using value_type = T;

  template <class U = T, class = std::enable_if_t<std::is_constructible_v<T, U&&>>>
  Expected(U&& value) : state_(std::in_place_index<0>, std::forward<U>(value)) {}   // NOLINT
  Expected(Unexpected u) : state_(std::in_place_index<1>, std::move(u).error()) {}  // NOLINT

  bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & {
    check();
    return std::get<0>(state_);
  }
  const T& value() const& {
    check();
    return std::get<0>(state_);
  }
  T&& value() && {
    check();
    return std::get<0>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& {
    TT_ASSERT(!has_value(), "error() called on a value");
    return std::get<1>(state_);
  }
  Error&& error() && {
    TT_ASSERT(!has_value(), "error() called on a value");
    return std::get<1>(std::move(state_));
  }

  template <class U>
  T value_or(U&& fallback) const& {
    return has_value() ? std::get<0>(state_) : static_cast<T>(std::forward<U>(fallback));
  }

  /// Adds context to the error, if any; a value passes through unchanged.
  Expected context(const std::string& what) && {
    if (!has_value()) return Unexpected(std::get<1>(std::move(state_)).context(what));
    return std::move(*this);
  }

 private:
  void check() const {
    TT_ASSERT(has_value(), "value() called on an error: %s", std::get<1>(state_).message.c_str());
  }
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Unexpected u) : error_(std::move(u).error()), ok_(false) {}  // NOLINT

  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  void value() const { TT_ASSERT(ok_, "value() called on an error: %s", error_.message.c_str()); }
  const Error& error() const& {
    TT_ASSERT(!ok_, "error() called on a value");
    return error_;
  }
  Error&& error() && {
    TT_ASSERT(!ok_, "error() called on a value");
    return std::move(error_);
  }
  Expected context(const std::string& what) && {
    if (!ok_) error_ = std::move(error_).context(what);
    return std::move(*this);
  }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace topotune

/// Propagate an error: `TT_TRY(auto topo, build_topology(spec));` declares `topo` on success
/// and returns the error (as Unexpected) otherwise.
#define TT_CONCAT_INNER(a, b) a##b
#define TT_CONCAT(a, b) TT_CONCAT_INNER(a, b)
#define TT_TRY(decl, expr) TT_TRY_IMPL(TT_CONCAT(tt_try_, __LINE__), decl, expr)
#define TT_TRY_IMPL(tmp, decl, expr)                                           \
  auto tmp = (expr);                                                           \
  if (!tmp.has_value()) return ::topotune::Unexpected(std::move(tmp).error()); \
  decl = std::move(tmp).value()
/// Propagate the error of an Expected<void>.
#define TT_TRY_VOID(expr)                                                                          \
  do {                                                                                             \
    auto tt_try_void_ = (expr);                                                                    \
    if (!tt_try_void_.has_value()) return ::topotune::Unexpected(std::move(tt_try_void_).error()); \
  } while (0)
