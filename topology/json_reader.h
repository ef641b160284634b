#pragma once
// Private to topology/: strict reading of JSON documents (instance and cluster files) with
// nlohmann::json. Every error names the origin (file) and the field path; syntax errors give
// line and column. No exception leaves these functions.

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "core/expected.h"

namespace topotune::topo::detail {

using Json = nlohmann::json;

/// Where a value sits: the origin (file name) and the field path ("gpu.count").
struct JsonPath {
  const std::string* origin = nullptr;
  std::string path;
  JsonPath operator/(const std::string& key) const {
    return {origin, path.empty() ? key : path + "." + key};
  }
  JsonPath at(std::size_t i) const { return {origin, path + "[" + std::to_string(i) + "]"}; }
  /// "<origin>: <path>: <what>"
  Unexpected error(const std::string& what, Errc code = Errc::ParseError) const;
};

/// Parses text; syntax errors read "<origin>:<line>:<column>: syntax error: ...".
Expected<Json> parse_json_text(const std::string& text, const std::string& origin);

/// The JSON type of `v` in words ("string", "integer", ...), for messages.
std::string json_type_name(const Json& v);

/// Fails if `v` is not an object or has a key outside `allowed` (typos are caught).
Expected<void> check_object(const Json& v, const JsonPath& at,
                            std::initializer_list<const char*> allowed);

/// The member `key` of object `obj`, or nullptr when absent.
const Json* find_member(const Json& obj, const std::string& key);

Expected<std::int64_t> read_int(const Json& v, const JsonPath& at, std::int64_t lo,
                                std::int64_t hi);
/// A finite number; `positive` requires > 0.
Expected<double> read_number(const Json& v, const JsonPath& at, bool positive);
/// A bandwidth or compute rate in the file's unit (Gbps, GB/s, TFLOPS): a number in
/// [1e-3, 1e7], so that 5e-324 Gbps (a time of inf) or 1e308 never reach the model.
Expected<double> read_rate(const Json& v, const JsonPath& at);
Expected<std::string> read_string(const Json& v, const JsonPath& at);
Expected<bool> read_bool(const Json& v, const JsonPath& at);

}  // namespace topotune::topo::detail
