#include "runtime/measurement.h"

#include <nlohmann/json.hpp>

namespace topotune::rt {
namespace {

using nlohmann::json;

constexpr const char* kSchema = "topotune.measurement/1";

template <class T>
void put_optional(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

json row_to_json(const MeasurementRow& r) {
  json j = {{"algorithm", r.algorithm},   {"bytes", r.bytes},
            {"count", r.count},           {"dtype", sched::dtype_name(r.dtype)},
            {"time_us", r.time_us},       {"algbw_GBps", r.algbw_GBps},
            {"busbw_GBps", r.busbw_GBps}};
  put_optional(j, "in_place_time_us", r.in_place_time_us);
  put_optional(j, "time_us_min", r.time_us_min);
  put_optional(j, "time_us_max", r.time_us_max);
  put_optional(j, "time_us_p10", r.time_us_p10);
  put_optional(j, "time_us_p90", r.time_us_p90);
  put_optional(j, "iterations", r.iterations);
  put_optional(j, "errors", r.errors);
  return j;
}

template <class T>
std::optional<T> get_optional(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<T>();
}

Expected<MeasurementRow> row_from_json(const json& j, std::size_t index) {
  MeasurementRow r;
  r.algorithm = j.at("algorithm").get<std::string>();
  r.bytes = j.at("bytes").get<std::int64_t>();
  r.count = j.value("count", std::int64_t{0});
  TT_TRY(r.dtype, sched::parse_dtype(j.value("dtype", std::string("fp32"))));
  r.time_us = j.at("time_us").get<double>();
  r.algbw_GBps = j.value("algbw_GBps", 0.0);
  r.busbw_GBps = j.value("busbw_GBps", 0.0);
  r.in_place_time_us = get_optional<double>(j, "in_place_time_us");
  r.time_us_min = get_optional<double>(j, "time_us_min");
  r.time_us_max = get_optional<double>(j, "time_us_max");
  r.time_us_p10 = get_optional<double>(j, "time_us_p10");
  r.time_us_p90 = get_optional<double>(j, "time_us_p90");
  r.iterations = get_optional<int>(j, "iterations");
  r.errors = get_optional<std::int64_t>(j, "errors");
  if (r.bytes < 0 || r.time_us < 0) {
    return fail(Errc::ParseError, "rows[" + std::to_string(index) + "]: negative bytes or time");
  }
  return r;
}

}  // namespace

std::string to_json(const Measurement& m) {
  json j = {{"schema", kSchema},
            {"source", m.source},
            {"backend", m.backend},
            {"collective", sched::collective_name(m.collective)},
            {"ranks", m.ranks}};
  put_optional(j, "nodes", m.nodes);
  put_optional(j, "gpus_per_node", m.gpus_per_node);
  put_optional(j, "instance", m.instance);
  put_optional(j, "nccl_version", m.nccl_version);
  put_optional(j, "cluster", m.cluster);
  put_optional(j, "gpus_per_thread", m.gpus_per_thread);
  put_optional(j, "channels", m.channels);
  put_optional(j, "chunks", m.chunks);
  json rows = json::array();
  for (const MeasurementRow& r : m.rows) rows.push_back(row_to_json(r));
  j["rows"] = std::move(rows);
  // Replace invalid UTF-8 (from pasted logs) instead of throwing: no exceptions leave this API.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Expected<Measurement> measurement_from_json(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    return fail(Errc::ParseError, origin + ": malformed JSON: " + e.what());
  }
  try {
    if (j.value("schema", std::string()) != kSchema) {
      return fail(Errc::ParseError, origin + ": not a measurement file (schema must be \"" +
                                        std::string(kSchema) + "\")");
    }
    Measurement m;
    m.source = j.value("source", std::string());
    m.backend = j.value("backend", std::string());
    TT_TRY(m.collective, sched::parse_collective(j.value("collective", std::string("allreduce"))));
    m.ranks = j.at("ranks").get<int>();
    m.nodes = get_optional<int>(j, "nodes");
    m.gpus_per_node = get_optional<int>(j, "gpus_per_node");
    m.instance = get_optional<std::string>(j, "instance");
    m.nccl_version = get_optional<std::string>(j, "nccl_version");
    m.cluster = get_optional<std::string>(j, "cluster");
    m.gpus_per_thread = get_optional<int>(j, "gpus_per_thread");
    m.channels = get_optional<int>(j, "channels");
    m.chunks = get_optional<int>(j, "chunks");
    if (m.channels.value_or(1) < 1 || m.chunks.value_or(1) < 1) {
      return fail(Errc::ParseError, origin + ": channels and chunks must be >= 1");
    }
    if (m.ranks < 1) return fail(Errc::ParseError, origin + ": ranks must be >= 1");
    const json& rows = j.at("rows");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      TT_TRY(MeasurementRow r, row_from_json(rows[i], i));
      m.rows.push_back(std::move(r));
    }
    return m;
  } catch (const json::exception& e) {
    return fail(Errc::ParseError, origin + ": " + e.what());
  }
}

}  // namespace topotune::rt
