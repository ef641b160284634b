// Strict JSON reading helpers (see json_reader.h).

#include "topology/json_reader.h"

#include <cmath>
#include <string_view>

#include "core/checked_json.h"

namespace topotune::topo::detail {

Unexpected JsonPath::error(const std::string& what, Errc code) const {
  const std::string where = path.empty() ? "" : path + ": ";
  return fail(code, (origin ? *origin : std::string("<json>")) + ": " + where + what);
}

namespace {

// nlohmann reports the byte offset after the offending character; turn it into line:column.
std::pair<std::size_t, std::size_t> line_column(const std::string& text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  const std::size_t end = byte == 0 ? 0 : std::min(byte - 1, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// nlohmann's what() reads "[json.exception.parse_error.101] parse error at line 1, column 5:
// syntax error while parsing value - ..."; keep the part after the position.
std::string short_reason(std::string_view what) {
  const std::size_t p = what.find("column ");
  if (p == std::string_view::npos) return std::string(what);
  const std::size_t colon = what.find(": ", p);
  return colon == std::string_view::npos ? std::string(what) : std::string(what.substr(colon + 2));
}

}  // namespace

Expected<Json> parse_json_text(const std::string& text, const std::string& origin) {
  try {
    Expected<Json> doc = parse_checked_json<Json>(text);
    if (!doc) return fail(Errc::ParseError, origin + ": " + doc.error().message);
    return doc;
  } catch (const Json::parse_error& e) {
    const auto [line, column] = line_column(text, e.byte);
    return fail(Errc::ParseError, origin + ":" + std::to_string(line) + ":" +
                                      std::to_string(column) + ": " + short_reason(e.what()));
  } catch (const Json::exception& e) {
    return fail(Errc::ParseError, origin + ": " + e.what());
  }
}

std::string json_type_name(const Json& v) {
  if (v.is_number_integer()) return "integer";
  if (v.is_number_float()) return "number";
  return v.type_name();
}

Expected<void> check_object(const Json& v, const JsonPath& at,
                            std::initializer_list<const char*> allowed) {
  if (!v.is_object()) return at.error("expected an object, got " + json_type_name(v));
  for (auto it = v.begin(); it != v.end(); ++it) {
    bool known = false;
    for (const char* k : allowed) known = known || it.key() == k;
    if (!known) {
      std::string list;
      for (const char* k : allowed) list += std::string(list.empty() ? "" : ", ") + k;
      return (at / it.key()).error("unknown key (allowed here: " + list + ")");
    }
  }
  return {};
}

const Json* find_member(const Json& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

Expected<std::int64_t> read_int(const Json& v, const JsonPath& at, std::int64_t lo,
                                std::int64_t hi) {
  if (!v.is_number_integer()) return at.error("expected an integer, got " + json_type_name(v));
  // Unsigned values above int64's range would wrap: compare before converting.
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
    return at.error("must be in " + std::to_string(lo) + ".." + std::to_string(hi),
                    Errc::InvalidArgument);
  const std::int64_t x = v.get<std::int64_t>();
  if (x < lo || x > hi)
    return at.error("must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " +
                        std::to_string(x),
                    Errc::InvalidArgument);
  return x;
}

Expected<double> read_number(const Json& v, const JsonPath& at, bool positive) {
  if (!v.is_number()) return at.error("expected a number, got " + json_type_name(v));
  const double x = v.get<double>();
  if (!std::isfinite(x)) return at.error("must be finite", Errc::InvalidArgument);
  if (positive && !(x > 0)) return at.error("must be > 0, got " + v.dump(), Errc::InvalidArgument);
  return x;
}

Expected<double> read_rate(const Json& v, const JsonPath& at) {
  TT_TRY(const double x, read_number(v, at, true));
  if (x < 1e-3 || x > 1e7) {
    return at.error("must be in [0.001, 1e7], got " + v.dump(), Errc::InvalidArgument);
  }
  return x;
}

Expected<std::string> read_string(const Json& v, const JsonPath& at) {
  if (!v.is_string()) return at.error("expected a string, got " + json_type_name(v));
  return v.get<std::string>();
}

Expected<bool> read_bool(const Json& v, const JsonPath& at) {
  if (!v.is_boolean()) return at.error("expected true or false, got " + json_type_name(v));
  return v.get<bool>();
}

}  // namespace topotune::topo::detail
