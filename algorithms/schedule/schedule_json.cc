#include "algorithms/schedule/schedule_json.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <vector>

#include "algorithms/schedule/validate.h"
#include "core/checked_json.h"

namespace topotune::sched {
namespace {

using nlohmann::json;
constexpr const char* kSchema = "topotune.schedule/1";

Unexpected bad(const std::string& origin, const std::string& path, const std::string& what) {
  return fail(Errc::ParseError, origin + ": " + (path.empty() ? "" : path + ": ") + what);
}

// Reads an integer member of `obj`; ParseError names the path when missing or mistyped.
Expected<std::int64_t> int_member(const json& obj, const char* key, const std::string& origin,
                                  const std::string& path) {
  const auto it = obj.find(key);
  if (it == obj.end()) return bad(origin, path, std::string("missing \"") + key + "\"");
  if (!it->is_number_integer()) return bad(origin, path + "." + key, "expected an integer");
  return it->get<std::int64_t>();
}

Expected<std::string> string_member(const json& obj, const char* key, const std::string& origin,
                                    const std::string& path) {
  const auto it = obj.find(key);
  if (it == obj.end()) return bad(origin, path, std::string("missing \"") + key + "\"");
  if (!it->is_string()) return bad(origin, path + "." + key, "expected a string");
  return it->get<std::string>();
}

Expected<CollectiveSpec> parse_spec(const json& j, const std::string& origin) {
  if (!j.is_object()) return bad(origin, "spec", "expected an object");
  CollectiveSpec spec;
  TT_TRY(const std::string coll, string_member(j, "collective", origin, "spec"));
  TT_TRY(spec.collective, parse_collective(coll).context(origin + ": spec.collective"));
  TT_TRY(const std::int64_t ranks, int_member(j, "ranks", origin, "spec"));
  if (ranks < 1 || ranks > (1 << 24)) return bad(origin, "spec.ranks", "out of range");
  spec.ranks = static_cast<int>(ranks);
  TT_TRY(const std::int64_t bytes, int_member(j, "bytes", origin, "spec"));
  spec.bytes = Bytes(bytes);
  TT_TRY(const std::string dtype, string_member(j, "dtype", origin, "spec"));
  TT_TRY(spec.dtype, parse_dtype(dtype).context(origin + ": spec.dtype"));
  if (j.contains("root")) {
    TT_TRY(const std::int64_t root, int_member(j, "root", origin, "spec"));
    spec.root = RankId(static_cast<std::int32_t>(root));
  }
  if (j.contains("in_place")) {
    if (!j["in_place"].is_boolean()) return bad(origin, "spec.in_place", "expected true or false");
    spec.in_place = j["in_place"].get<bool>();
  }
  TT_TRY_VOID(spec.check().context(origin + ": spec"));
  return spec;
}

Expected<Endpoint> parse_endpoint(const json& o, std::size_t i, int ranks,
                                  const std::string& origin) {
  const std::string path = "endpoints[" + std::to_string(i) + "]";
  if (!o.is_object()) return bad(origin, path, "expected an object");
  TT_TRY(const std::int64_t id, int_member(o, "id", origin, path));
  if (id != ranks + static_cast<std::int64_t>(i)) {
    return bad(origin, path + ".id",
               "expected " + std::to_string(ranks + static_cast<std::int64_t>(i)) +
                   " (extra endpoints follow the ranks, in order)");
  }
  TT_TRY(const std::string kind, string_member(o, "kind", origin, path));
  if (kind != "host_cpu") return bad(origin, path + ".kind", "unknown kind \"" + kind + "\"");
  TT_TRY(const std::int64_t host, int_member(o, "host", origin, path));
  TT_TRY(const std::int64_t exec, int_member(o, "executor", origin, path));
  if (exec < 0 || exec >= ranks) return bad(origin, path + ".executor", "not a rank");
  if (host < 0 || host > INT32_MAX) return bad(origin, path + ".host", "out of range");
  return Endpoint{EndpointKind::HostCpu, static_cast<int>(host),
                  RankId(static_cast<std::int32_t>(exec))};
}

// One transfer; its dependencies are appended to `deps` (the CSR array).
template <class DepArray>
Expected<Transfer> parse_transfer(const json& o, std::size_t i, const std::string& origin,
                                  DepArray& deps) {
  const std::string path = "transfers[" + std::to_string(i) + "]";
  if (!o.is_object()) return bad(origin, path, "expected an object");
  TT_TRY(const std::int64_t id, int_member(o, "id", origin, path));
  if (id != static_cast<std::int64_t>(i)) {
    return bad(origin, path + ".id", "expected " + std::to_string(i) + " (ids are positions)");
  }
  Transfer t;
  TT_TRY(const std::int64_t src, int_member(o, "src", origin, path));
  TT_TRY(const std::int64_t dst, int_member(o, "dst", origin, path));
  TT_TRY(const std::int64_t offset, int_member(o, "offset", origin, path));
  TT_TRY(const std::int64_t bytes, int_member(o, "bytes", origin, path));
  if (src < 0 || src > INT32_MAX || dst < 0 || dst > INT32_MAX) {
    return bad(origin, path, "endpoint id out of range");
  }
  t.src = EndpointId(static_cast<std::int32_t>(src));
  t.dst = EndpointId(static_cast<std::int32_t>(dst));
  t.slice = Slice{Bytes(offset), Bytes(bytes)};
  if (!o.contains("reduce") || !o["reduce"].is_boolean()) {
    return bad(origin, path + ".reduce", "missing or not true/false");
  }
  t.reduce = o["reduce"].get<bool>();
  if (o.contains("channel")) {
    TT_TRY(const std::int64_t ch, int_member(o, "channel", origin, path));
    if (ch < 0 || ch > INT16_MAX) return bad(origin, path + ".channel", "out of range");
    t.channel = static_cast<std::int16_t>(ch);
  }
  if (!o.contains("deps")) return t;
  const json& list = o["deps"];
  if (!list.is_array()) return bad(origin, path + ".deps", "expected an array");
  for (std::size_t d = 0; d < list.size(); ++d) {
    const std::string at = path + ".deps[" + std::to_string(d) + "]";
    if (!list[d].is_number_integer()) return bad(origin, at, "expected an integer");
    const std::int64_t dep = list[d].get<std::int64_t>();
    if (dep < 0 || dep >= id) {
      return bad(origin, at,
                 "dependency " + std::to_string(dep) + " does not point to an earlier transfer");
    }
    deps.push_back(TransferId(static_cast<std::int32_t>(dep)));
  }
  return t;
}

}  // namespace

void ScheduleJson::write(const Schedule& s, std::ostream& out) {
  const CollectiveSpec& spec = s.spec();
  out << "{\"schema\": \"" << kSchema << "\", \"algorithm\": " << json(s.algorithm()).dump()
      << ",\n \"spec\": {\"collective\": \"" << collective_name(spec.collective)
      << "\", \"ranks\": " << spec.ranks << ", \"bytes\": " << spec.bytes.value << ", \"dtype\": \""
      << dtype_name(spec.dtype) << "\", \"root\": " << spec.root.value
      << ", \"in_place\": " << (spec.in_place ? "true" : "false") << "},\n \"endpoints\": [";
  for (int e = s.num_ranks(); e < s.num_endpoints(); ++e) {
    const Endpoint ep = s.endpoint(EndpointId(e));
    out << (e > s.num_ranks() ? ",\n  " : "\n  ") << "{\"id\": " << e
        << ", \"kind\": \"host_cpu\", \"host\": " << ep.host
        << ", \"executor\": " << ep.executor.value << "}";
  }
  out << "],\n \"transfers\": [";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Transfer& t = s.transfers()[i];
    out << (i > 0 ? ",\n  " : "\n  ") << "{\"id\": " << i << ", \"src\": " << t.src.value
        << ", \"dst\": " << t.dst.value << ", \"offset\": " << t.slice.offset.value
        << ", \"bytes\": " << t.slice.size.value
        << ", \"reduce\": " << (t.reduce ? "true" : "false") << ", \"channel\": " << t.channel
        << ", \"deps\": [";
    const auto deps = s.deps(TransferId(static_cast<std::int32_t>(i)));
    for (std::size_t d = 0; d < deps.size(); ++d) out << (d > 0 ? ", " : "") << deps[d].value;
    out << "]}";
  }
  out << "]}\n";
}

Expected<Schedule> ScheduleJson::parse(std::string_view text, const std::string& origin) {
  json j;
  try {
    Expected<json> checked = parse_checked_json<json>(text);
    if (!checked) return fail(Errc::ParseError, origin + ": " + checked.error().message);
    j = std::move(*checked);
  } catch (const json::parse_error& e) {
    return fail(Errc::ParseError,
                origin + ": malformed JSON at byte " + std::to_string(e.byte) + ": " + e.what());
  } catch (const json::exception& e) {  // out_of_range for a number such as 2e308
    return fail(Errc::ParseError, origin + ": malformed JSON: " + e.what());
  }
  if (!j.is_object()) return bad(origin, "", "expected a JSON object");
  TT_TRY(const std::string schema, string_member(j, "schema", origin, ""));
  if (schema != kSchema) {
    return bad(origin, "schema",
               "unsupported \"" + schema + "\" (this topotune reads " + kSchema + ")");
  }
  if (!j.contains("spec")) return bad(origin, "", "missing \"spec\"");
  Schedule s;
  TT_TRY(s.spec_, parse_spec(j["spec"], origin));
  if (j.contains("algorithm")) {
    TT_TRY(s.algorithm_, string_member(j, "algorithm", origin, ""));
  }
  const json empty = json::array();
  const json& eps = j.contains("endpoints") ? j["endpoints"] : empty;
  if (!eps.is_array()) return bad(origin, "endpoints", "expected an array");
  for (std::size_t i = 0; i < eps.size(); ++i) {
    TT_TRY(const Endpoint ep, parse_endpoint(eps[i], i, s.spec_.ranks, origin));
    s.extra_.push_back(ep);
  }
  if (!j.contains("transfers") || !j["transfers"].is_array()) {
    return bad(origin, "transfers", "missing or not an array");
  }
  const json& ts = j["transfers"];
  s.transfers_.reserve(ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) {
    TT_TRY(Transfer t, parse_transfer(ts[i], i, origin, s.deps_));
    t.dep_end = static_cast<std::uint32_t>(s.deps_.size());
    s.transfers_.push_back(t);
  }
  TT_TRY_VOID(validate(s).context(origin));
  return s;
}

std::string schedule_to_json(const Schedule& s) {
  std::ostringstream out;
  ScheduleJson::write(s, out);
  return out.str();
}

Expected<Schedule> parse_schedule_json(std::string_view text, const std::string& origin) {
  return ScheduleJson::parse(text, origin);
}

}  // namespace topotune::sched
