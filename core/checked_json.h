#pragma once
// The one way topotune parses JSON input (docs/limits.md). Two defects of parsing straight
// into a tree with nlohmann::json made this necessary:
//   - the tree is copied, dumped and destroyed recursively, so ~80,000 levels of nesting (a
//     160 KB file of '[') overflow the stack: SIGSEGV instead of an error;
//   - duplicate keys were found with a parser callback, and the callback parser is quadratic
//     in the number of objects (3.11.2 json_sax.hpp: its end_object searches the parent
//     container), so 300,000 empty objects took 28 s and a 64 MiB file hours.
// So the text is read twice. First nlohmann's SAX parser, which is iterative (it cannot
// overflow the stack), drives JsonStructureCheck: nesting past kMaxJsonDepth stops it, and
// each open object keeps the set of its keys on a stack, so a duplicate key costs a set
// lookup, not a scan. Then the plain Json::parse(text), with no callback, builds the tree,
// whose depth the first pass has bounded.
//
// A template over the JSON type so that core/ stays free of third-party headers: a module
// that already uses nlohmann::json (or ordered_json) instantiates it.
//
//   try {
//     Expected<json> j = parse_checked_json<json>(text);  // throws what json::parse throws
//     if (!j) return fail(Errc::ParseError, origin + ": " + j.error().message);
//   } catch (const json::exception& e) { ... }            // malformed text, as before

#include <cstddef>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace topotune {

/// The deepest nesting of arrays and objects any JSON input may have: `[]` is 1 level. The
/// deepest document topotune reads or writes (a plan embedding a cluster file) has under 10.
inline constexpr int kMaxJsonDepth = 64;

/// What a document may hold besides valid syntax.
struct JsonLimits {
  /// Levels of nesting of arrays and objects.
  int max_depth = kMaxJsonDepth;
  /// Keys of one object. Readers into nlohmann::ordered_json set it: that object type finds a
  /// key by a linear scan, so building an object of k keys costs k^2/2 comparisons (200,000
  /// keys: 37 s).
  std::size_t max_object_keys = std::numeric_limits<std::size_t>::max();
};

namespace checked_json_detail {

/// A char iterator that records how far the parser has read, so that the handler can name
/// the byte where nesting went too deep (the SAX interface passes no position).
struct TrackingIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* at = nullptr;
  const char** read_end = nullptr;  // where the last character read ends

  reference operator*() const { return *at; }
  TrackingIterator& operator++() {
    *read_end = ++at;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const TrackingIterator& other) const { return at == other.at; }
  bool operator!=(const TrackingIterator& other) const { return at != other.at; }
};

}  // namespace checked_json_detail

/// A SAX handler for Json::sax_parse that checks the structure of a document without building
/// it: nesting and keys per object within `JsonLimits` (it stops the parse where one is
/// crossed) and each key once per object (it records the first duplicate and reads on, so that a
/// syntax error later in the text is still reported as one). Holds one key set per open
/// object: memory within the size of the text.
template <class Json>
class JsonStructureCheck {
 public:
  using string_t = typename Json::string_t;

  /// `text_begin` and `*read_end` bound what the parser has read (see TrackingIterator).
  JsonStructureCheck(JsonLimits limits, const char* text_begin, const char* const* read_end)
      : limits_(limits), begin_(text_begin), read_end_(read_end) {}

  bool null() { return true; }
  bool boolean(bool /*value*/) { return true; }
  bool number_integer(typename Json::number_integer_t /*value*/) { return true; }
  bool number_unsigned(typename Json::number_unsigned_t /*value*/) { return true; }
  bool number_float(typename Json::number_float_t /*value*/, const string_t& /*text*/) {
    return true;
  }
  bool string(string_t& /*value*/) { return true; }
  bool binary(typename Json::binary_t& /*value*/) { return true; }
  bool start_object(std::size_t /*elements*/) {
    keys_.emplace_back();
    return enter();
  }
  bool key(string_t& k) {
    if (keys_.back().size() == limits_.max_object_keys) {
      too_many_keys_at_ = position();
      return false;
    }
    if (!keys_.back().insert(k).second && !duplicate_) {
      duplicate_ = true;
      duplicate_key_ = k;
    }
    return true;
  }
  bool end_object() {
    keys_.pop_back();
    --depth_;
    return true;
  }
  bool start_array(std::size_t /*elements*/) { return enter(); }
  bool end_array() {
    --depth_;
    return true;
  }
  /// Malformed text: left to Json::parse, which reports it with its usual message.
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const typename Json::exception& /*error*/) {
    malformed_ = true;
    return false;
  }

  /// The structural problem found, or "". Malformed text hides a duplicate key found before
  /// the error, as the callback parser's exception did: Json::parse reports it.
  std::string problem() const {
    if (too_deep_at_ != 0) {
      return "nesting deeper than " + std::to_string(limits_.max_depth) + " levels at byte " +
             std::to_string(too_deep_at_);
    }
    if (too_many_keys_at_ != 0) {
      return "more than " + std::to_string(limits_.max_object_keys) +
             " keys in one object at byte " + std::to_string(too_many_keys_at_);
    }
    if (!duplicate_ || malformed_) return "";
    const std::string shown =
        duplicate_key_.size() > 64 ? duplicate_key_.substr(0, 64) + "..." : duplicate_key_;
    return "duplicate key '" + shown + "' in an object (each key may appear once)";
  }

 private:
  bool enter() {
    if (++depth_ <= limits_.max_depth) return true;
    too_deep_at_ = position();
    return false;
  }
  // The parser has just read the opening bracket or the key's closing quote: the 1-based
  // offset of that character, as nlohmann's parse errors count.
  std::size_t position() const { return static_cast<std::size_t>(*read_end_ - begin_); }

  JsonLimits limits_;
  const char* begin_;
  const char* const* read_end_;
  int depth_ = 0;
  std::size_t too_deep_at_ = 0;
  std::size_t too_many_keys_at_ = 0;
  std::vector<std::set<string_t>> keys_;
  bool duplicate_ = false;
  string_t duplicate_key_;
  bool malformed_ = false;
};

/// Parses `text` into a Json tree after checking its structure: an error (without origin)
/// for nesting deeper than the limit ("nesting deeper than 64 levels at byte N"), an object
/// with more keys than the limit ("more than 256 keys in one object at byte N") or a key
/// twice in one object ("duplicate key 'k' in an object (each key may appear once)"). A limit
/// stops the first pass where it is crossed; a duplicate is reported only for text that is
/// otherwise well-formed and within the limits. Malformed text throws Json::parse_error (a number
/// past a double's range Json::out_of_range) exactly as Json::parse(text) does, so each reader
/// keeps its messages. Time linear in the text (key lookups are O(log keys of that object)).
template <class Json>
Expected<Json> parse_checked_json(std::string_view text, JsonLimits limits = {}) {
  const char* read_end = text.data();
  checked_json_detail::TrackingIterator first{text.data(), &read_end};
  checked_json_detail::TrackingIterator last{text.data() + text.size(), &read_end};
  JsonStructureCheck<Json> check(limits, text.data(), &read_end);
  Json::sax_parse(first, last, &check);
  std::string problem = check.problem();
  if (!problem.empty()) return fail(Errc::ParseError, std::move(problem));
  return Json::parse(text);
}

}  // namespace topotune
