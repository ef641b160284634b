#pragma once
// Duplicate keys in JSON input: RFC 8259 leaves them undefined and nlohmann::json silently
// keeps the last one, so `{"nodes": 2, "nodes": 64}` would plan for 64 nodes while a reader
// of the file sees 2. Every JSON input in topotune is parsed with this check. It is a template
// over the JSON type so that core/ stays free of third-party headers: a module that already
// uses nlohmann::json (or ordered_json) instantiates it.
//
//   DuplicateKeyCheck<nlohmann::json> dup;
//   json j = json::parse(text, dup.callback());   // may still throw parse_error
//   if (dup.found()) return fail(Errc::ParseError, origin + ": " + dup.message());

#include <set>
#include <string>
#include <vector>

namespace topotune {

/// Records the first key that occurs twice in one JSON object while a document is parsed.
template <class Json>
class DuplicateKeyCheck {
 public:
  /// A parser callback for Json::parse; it keeps every value (returns true). The check must
  /// outlive the parse.
  typename Json::parser_callback_t callback() {
    return [this](int /*depth*/, typename Json::parse_event_t event, Json& parsed) {
      using Event = typename Json::parse_event_t;
      if (event == Event::object_start) {
        keys_.emplace_back();
      } else if (event == Event::object_end) {
        if (!keys_.empty()) keys_.pop_back();
      } else if (event == Event::key && !keys_.empty() && parsed.is_string()) {
        const std::string& key = parsed.template get_ref<const std::string&>();
        if (!keys_.back().insert(key).second && !found_) {
          found_ = true;
          key_ = key;
        }
      }
      return true;
    };
  }

  /// Whether some object had a key twice.
  bool found() const { return found_; }
  /// "duplicate key 'nodes' in an object (each key may appear once)".
  std::string message() const {
    const std::string shown = key_.size() > 64 ? key_.substr(0, 64) + "..." : key_;
    return "duplicate key '" + shown + "' in an object (each key may appear once)";
  }

 private:
  std::vector<std::set<std::string>> keys_;
  bool found_ = false;
  std::string key_;
};

}  // namespace topotune
