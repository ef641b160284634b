#pragma once
// EnumNames: one table per enum from which both directions are read. name_of(value) writes the
// name, parse(text, what) reads it back, and names_text() lists the names for the "known: ..."
// part of the message, so a value added to the table is named, parsed and listed at once (with
// a hand-written switch beside a hand-written parser, adding a value to one and not the other
// fails silently). Rows flagged as aliases are accepted by parse but never written or listed:
// a value's name is its first non-alias row.
//
//   constexpr auto kNames = enum_names<Framework>({{Framework::Ddp, "ddp"},
//                                                  {Framework::Fsdp, "fsdp"}});
//   kNames.name_of(Framework::Fsdp);          // "fsdp"
//   kNames.parse("ddpp", "framework");        // "unknown framework 'ddpp' (known: ddp, fsdp)"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/assert.h"
#include "core/expected.h"
#include "core/name_check.h"

namespace topotune {

/// One row of an EnumNames table. `name` is a string literal (the table outlives every use of
/// the pointer name_of returns); an `alias` row only parses.
template <class E>
struct EnumName {
  E value;
  const char* name;
  bool alias = false;
};

/// A fixed table of an enum's names; see the file comment. Build it with enum_names<E>({...}).
template <class E, std::size_t N>
struct EnumNames {
  std::array<EnumName<E>, N> rows;

  /// The name of `value`: its first non-alias row. A value with no such row is a bug (the
  /// table misses an enumerator), so it aborts through TT_ASSERT.
  const char* name_of(E value) const {
    for (const EnumName<E>& r : rows) {
      if (!r.alias && r.value == value) return r.name;
    }
    TT_ASSERT(false, "enum value %d has no name in its table", static_cast<int>(value));
    return "";
  }

  /// The value whose name or alias is exactly `text`, if any (callers that accept other
  /// spellings normalise `text` first).
  std::optional<E> find(std::string_view text) const {
    for (const EnumName<E>& r : rows) {
      if (text == r.name) return r.value;
    }
    return std::nullopt;
  }

  /// find(text), else Errc::InvalidArgument "unknown <what> '<text>' (known: a, b, c)" with
  /// `text` shown through display_text.
  Expected<E> parse(std::string_view text, std::string_view what) const {
    if (std::optional<E> v = find(text)) return *v;
    return unknown(text, what);
  }

  /// The error parse returns for `text`, for callers that look up a normalised spelling but
  /// name the text as given.
  Unexpected unknown(std::string_view text, std::string_view what) const {
    return fail(Errc::InvalidArgument, "unknown " + std::string(what) + " '" + display_text(text) +
                                           "' (known: " + names_text() + ")");
  }

  /// The names in table order, aliases left out: "a, b, c"; with `last` " or ": "a, b or c".
  std::string names_text(std::string_view separator = ", ", std::string_view last = ", ") const {
    std::string out;
    const std::vector<E> values = all();
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out += i + 1 == values.size() ? last : separator;
      out += name_of(values[i]);
    }
    return out;
  }

  /// Whether the table is well formed: names unique, each value named by exactly one non-alias
  /// row, each alias's value also named by one. enum_names refuses (at compile time) a table
  /// that is not.
  constexpr bool valid() const {
    for (std::size_t i = 0; i < N; ++i) {
      int named = 0;
      for (std::size_t j = 0; j < N; ++j) {
        if (j != i && std::string_view(rows[i].name) == rows[j].name) return false;
        if (!rows[j].alias && rows[j].value == rows[i].value) ++named;
      }
      if (named != 1) return false;
    }
    return true;
  }

  /// Every value once, in table order (alias rows left out).
  std::vector<E> all() const {
    std::vector<E> out;
    for (const EnumName<E>& r : rows) {
      if (!r.alias) out.push_back(r.value);
    }
    return out;
  }
};

namespace detail {
// Not constexpr: reaching it while enum_names is evaluated stops the build, naming it.
inline void enum_names_table_is_invalid() {}
}  // namespace detail

/// The table of `rows`, N deduced as std::to_array does. consteval: a table that is not
/// valid() (a duplicate name, a value named twice, an alias of an unnamed value) is a
/// compile error, not a wrong name at run time.
template <class E, std::size_t N>
consteval EnumNames<E, N> enum_names(const EnumName<E> (&rows)[N]) {
  EnumNames<E, N> t{};
  for (std::size_t i = 0; i < N; ++i) t.rows[i] = rows[i];
  if (!t.valid()) detail::enum_names_table_is_invalid();
  return t;
}

}  // namespace topotune
