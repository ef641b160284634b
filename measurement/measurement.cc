#include "measurement/measurement.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "core/checked_json.h"
#include "core/json_integer.h"

namespace topotune::rt {
namespace {

using nlohmann::json;

constexpr const char* kSchema = "topotune.measurement/1";

template <class T>
void put_optional(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

json row_to_json(const MeasurementRow& r) {
  json j = {{"algorithm", r.algorithm},  {"bytes", r.bytes},
            {"count", r.count},          {"dtype", sched::dtype_name(r.dtype)},
            {"time_us", r.time_us},      {"algbw_GBps", r.algbw_GBps},
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

// An integer field must hold a JSON integer within T's range: nlohmann's get<int>() casts a
// float (1e300) or a wider integer to T unchecked, which is undefined behaviour for floats
// (found by measurement_fuzz under UBSan) and wraps 2^32 + 1 to 1 for integers. The check is
// core's (json_integer.h); this reader reports it by throwing, as its other field errors do.
template <class T>
T integer_at(const json& j, const char* key) {
  static_assert(std::is_integral_v<T>);
  const Expected<std::int64_t> v =
      json_integer(j.at(key), key, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  if (!v) throw std::domain_error(v.error().message);
  return static_cast<T>(*v);
}

template <class T>
std::optional<T> get_optional(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  if constexpr (std::is_integral_v<T>) {
    return integer_at<T>(j, key);
  } else {
    return j.at(key).get<T>();
  }
}

Expected<MeasurementRow> row_from_json(const json& j, std::size_t index) {
  MeasurementRow r;
  r.algorithm = j.at("algorithm").get<std::string>();
  r.bytes = integer_at<std::int64_t>(j, "bytes");
  r.count = get_optional<std::int64_t>(j, "count").value_or(0);
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
  TT_TRY_VOID(check_measurement_row(r).context("rows[" + std::to_string(index) + "]"));
  return r;
}

}  // namespace

// The header's counts within what topotune can schedule (docs/limits.md): a measurement
// claiming 1024 channels x 65536 chunks would otherwise be rebuilt as a schedule.
Expected<void> check_measurement_header(const Measurement& m) {
  const auto out_of = [](const char* key, std::int64_t v, std::int64_t hi) -> Expected<void> {
    return fail(Errc::ParseError, std::string(key) + " must be in [1, " + std::to_string(hi) +
                                      "], got " + std::to_string(v));
  };
  if (m.ranks < 1 || m.ranks > kMaxMeasuredRanks)
    return out_of("ranks", m.ranks, kMaxMeasuredRanks);
  const std::pair<const std::optional<int>*, std::pair<const char*, int>> optional_counts[] = {
      {&m.nodes, {"nodes", kMaxMeasuredRanks}},
      {&m.gpus_per_node, {"gpus_per_node", kMaxMeasuredRanks}},
      {&m.gpus_per_thread, {"gpus_per_thread", kMaxMeasuredRanks}},
      {&m.channels, {"channels", kMaxMeasuredChannels}},
      {&m.chunks, {"chunks", kMaxMeasuredChunks}}};
  for (const auto& [value, key_max] : optional_counts) {
    if (*value && (**value < 1 || **value > key_max.second)) {
      return out_of(key_max.first, **value, key_max.second);
    }
  }
  if (m.ranks_cpu_s && !(*m.ranks_cpu_s >= 0 && *m.ranks_cpu_s <= kMaxMeasuredCpuSeconds)) {
    return fail(Errc::ParseError, "ranks_cpu_s must be in [0, 1e9] seconds");
  }
  return {};
}

// 1e308 us would turn into inf in every ratio derived from it.
Expected<void> check_measurement_row(const MeasurementRow& r) {
  if (r.bytes > kMaxMeasuredBytes) return fail(Errc::ParseError, "bytes is more than 1 TiB");
  const double times[] = {r.time_us,
                          r.in_place_time_us.value_or(0),
                          r.time_us_min.value_or(0),
                          r.time_us_max.value_or(0),
                          r.time_us_p10.value_or(0),
                          r.time_us_p90.value_or(0)};
  for (double t : times) {
    if (!(t >= 0 && t <= kMaxMeasuredTimeUs) || (t > 0 && t < kMinMeasuredTimeUs)) {
      return fail(Errc::ParseError, "times must be 0 or in [0.001, 1e12] us");
    }
  }
  if (r.bytes > 0 && r.time_us < kMinMeasuredTimeUs) {  // else validate would drop the row
    return fail(Errc::ParseError,
                "a row of " + std::to_string(r.bytes) + " bytes needs a time of at least 0.001 us");
  }
  for (double bw : {r.algbw_GBps, r.busbw_GBps}) {
    if (!std::isfinite(bw) || bw < 0) return fail(Errc::ParseError, "bandwidths must be >= 0");
  }
  return {};
}

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
  put_optional(j, "ranks_cpu_s", m.ranks_cpu_s);
  json rows = json::array();
  for (const MeasurementRow& r : m.rows) rows.push_back(row_to_json(r));
  j["rows"] = std::move(rows);
  // Replace invalid UTF-8 (from pasted logs) instead of throwing: no exceptions leave this API.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Expected<Measurement> measurement_from_json(const std::string& text, const std::string& origin) {
  json j;
  try {
    Expected<json> checked = parse_checked_json<json>(text);
    if (!checked) return fail(Errc::ParseError, origin + ": " + checked.error().message);
    j = std::move(*checked);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for 2e308
    return fail(Errc::ParseError, origin + ": malformed JSON: " + e.what());
  }
  try {
    if (!j.is_object() || j.value("schema", std::string()) != kSchema) {
      return fail(Errc::ParseError, origin + ": not a measurement file (schema must be \"" +
                                        std::string(kSchema) + "\")");
    }
    Measurement m;
    m.source = j.value("source", std::string());
    m.backend = j.value("backend", std::string());
    TT_TRY(m.collective, sched::parse_collective(j.value("collective", std::string("allreduce"))));
    m.ranks = integer_at<int>(j, "ranks");
    m.nodes = get_optional<int>(j, "nodes");
    m.gpus_per_node = get_optional<int>(j, "gpus_per_node");
    m.instance = get_optional<std::string>(j, "instance");
    m.nccl_version = get_optional<std::string>(j, "nccl_version");
    m.cluster = get_optional<std::string>(j, "cluster");
    m.gpus_per_thread = get_optional<int>(j, "gpus_per_thread");
    m.channels = get_optional<int>(j, "channels");
    m.chunks = get_optional<int>(j, "chunks");
    m.ranks_cpu_s = get_optional<double>(j, "ranks_cpu_s");
    TT_TRY_VOID(check_measurement_header(m).context(origin));
    const json& rows = j.at("rows");
    if (!rows.is_array() || rows.size() > kMaxMeasuredRows) {
      return fail(Errc::ParseError, origin + ": rows must be an array of at most " +
                                        std::to_string(kMaxMeasuredRows) + " rows");
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      TT_TRY(MeasurementRow r, row_from_json(rows[i], i).context(origin));
      m.rows.push_back(std::move(r));
    }
    return m;
  } catch (const json::exception& e) {
    return fail(Errc::ParseError, origin + ": " + e.what());
  } catch (const std::domain_error& e) {
    return fail(Errc::ParseError, origin + ": " + e.what());
  }
}

}  // namespace topotune::rt
