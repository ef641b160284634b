#include "planning/model_profile.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/checked_json.h"
#include "core/input_file.h"
#include "core/json_integer.h"
#include "core/name_check.h"
#include "planning/embedded_models.h"

namespace topotune::tune {
namespace {

using nlohmann::json;

constexpr const char* kSchema = "topotune.model_profile/1";

// Bounds (docs/limits.md): far above any model trained today (the largest have ~2^41
// parameters), low enough that every sum and byte count of the step model fits in 64 bits.
constexpr std::int64_t kMaxTensorNumel = std::int64_t{1} << 40;
constexpr std::int64_t kMaxModelParams = std::int64_t{1} << 44;
constexpr std::size_t kMaxEntries = 1 << 20;  // layers, params
constexpr double kMaxNumber = 1e24;           // FLOPs of one layer; seconds are far below

Unexpected bad(const std::string& where, const std::string& what) {
  return fail(Errc::ParseError, where + ": " + what);
}

Expected<double> non_negative_number(const json& j, const char* key, const std::string& where) {
  const json& v = j.at(key);
  if (!v.is_number()) return bad(where, std::string("'") + key + "' must be a number");
  const double d = v.get<double>();
  if (!(d >= 0)) return bad(where, std::string("'") + key + "' must be >= 0, got " + v.dump());
  if (!(d <= kMaxNumber)) {
    return bad(where, std::string("'") + key + "' must be at most 1e24, got " + v.dump());
  }
  return d;
}

Expected<LayerProfile> parse_layer(const json& j, const std::string& where) {
  if (!j.is_object()) return bad(where, "must be an object");
  LayerProfile l;
  if (!j.contains("name") || !j["name"].is_string()) return bad(where, "needs a string 'name'");
  l.name = j["name"].get<std::string>();
  const std::string at = where + " '" + l.name + "'";
  if (j.contains("forward_flops")) {
    TT_TRY(l.forward_flops, non_negative_number(j, "forward_flops", at));
  }
  if (j.contains("backward_time_s")) {
    TT_TRY(const double t, non_negative_number(j, "backward_time_s", at));
    l.backward_time = Seconds(t);
  }
  if (j.contains("forward_time_s")) {
    TT_TRY(const double t, non_negative_number(j, "forward_time_s", at));
    l.forward_time = Seconds(t);
  }
  if (!j.contains("forward_flops") && !l.backward_time) {
    return bad(at, "needs 'forward_flops' or 'backward_time_s'");
  }
  return l;
}

Expected<ParamTensor> parse_param(const json& j, const std::string& where, int num_layers) {
  if (!j.is_object()) return bad(where, "must be an object");
  ParamTensor p;
  if (!j.contains("name") || !j["name"].is_string()) return bad(where, "needs a string 'name'");
  p.name = j["name"].get<std::string>();
  const std::string at = where + " '" + p.name + "'";
  if (!j.contains("numel") || !j["numel"].is_number_integer()) {
    return bad(at, "needs an integer 'numel'");
  }
  if (j["numel"].is_number_unsigned() && j["numel"].get<std::uint64_t>() > kMaxTensorNumel) {
    return bad(at, "numel must be at most 2^40, got " + j["numel"].dump());
  }
  p.numel = j["numel"].get<std::int64_t>();
  if (p.numel <= 0) return bad(at, "numel must be positive, got " + std::to_string(p.numel));
  if (p.numel > kMaxTensorNumel) {
    return bad(at, "numel must be at most 2^40, got " + std::to_string(p.numel));
  }
  if (!j.contains("layer") || !j["layer"].is_number_integer()) {
    return bad(at, "needs an integer 'layer'");
  }
  const std::int64_t layer = j["layer"].get<std::int64_t>();
  if (layer < 0 || layer >= num_layers) {
    return bad(at, "layer " + std::to_string(layer) + " is out of range [0, " +
                       std::to_string(num_layers) + ")");
  }
  p.layer = static_cast<int>(layer);
  if (j.contains("trainable")) {
    if (!j["trainable"].is_boolean()) return bad(at, "'trainable' must be true or false");
    p.trainable = j["trainable"].get<bool>();
  }
  return p;
}

Expected<std::string> optional_string(const json& j, const char* key) {
  if (!j.contains(key)) return std::string();
  if (!j[key].is_string()) return bad("profile", std::string("'") + key + "' must be a string");
  return j[key].get<std::string>();
}

// What the compute model needs besides layers: where measured times were taken, the family
// whose fitted efficiency applies, or the profile's own efficiency.
Expected<void> parse_compute_fields(const json& j, ModelProfile& m) {
  TT_TRY(m.measured_device, optional_string(j, "measured_device"));
  TT_TRY(m.measured_device_name, optional_string(j, "measured_device_name"));
  TT_TRY(const std::string family, optional_string(j, "family"));
  if (!family.empty()) {
    TT_TRY(m.family, parse_model_family(family).context("profile"));
  }
  if (j.contains("compute_efficiency")) {
    const json& e = j["compute_efficiency"];
    if (!e.is_number() || !(e.get<double>() >= 1e-3 && e.get<double>() <= 1)) {
      return bad("profile", "'compute_efficiency' must be a number in [0.001, 1], got " + e.dump());
    }
    m.compute_efficiency = e.get<double>();
  }
  return {};
}

Expected<void> parse_header(const json& j, ModelProfile& m) {
  if (!j.is_object()) return bad("profile", "the top level must be an object");
  if (!j.contains("schema") || j["schema"] != kSchema) {
    return bad("profile", std::string("'schema' must be \"") + kSchema + "\"");
  }
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty()) {
    return bad("profile", "needs a non-empty string 'name'");
  }
  m.name = j["name"].get<std::string>();
  // The name is written into the emitted launch files: a closed character set keeps it data.
  if (auto ok = check_name(m.name, "'name'"); !ok) return bad("profile", ok.error().message);
  m.description = j.value("description", "");
  m.input = j.value("input", "");
  if (j.contains("measured_batch_per_gpu")) {
    TT_TRY(const std::int64_t batch,
           json_integer(j["measured_batch_per_gpu"], "'measured_batch_per_gpu'", 1, kMaxBatchPerGpu)
               .context("profile"));
    m.measured_batch = static_cast<int>(batch);  // in [1, 2^20]
  }
  TT_TRY_VOID(parse_compute_fields(j, m));
  for (const char* key : {"layers", "params"}) {
    if (!j.contains(key) || !j[key].is_array() || j[key].empty()) {
      return bad("profile", std::string("needs a non-empty array '") + key + "'");
    }
    if (j[key].size() > kMaxEntries) {
      return bad("profile", std::string("'") + key + "' has " + std::to_string(j[key].size()) +
                                " entries, more than the limit of 2^20");
    }
  }
  return {};
}

Expected<void> check_consistency(const json& j, const ModelProfile& m) {
  const auto timed = std::count_if(m.layers.begin(), m.layers.end(),
                                   [](const LayerProfile& l) { return l.backward_time; });
  if (timed != 0 && timed != static_cast<long>(m.layers.size())) {
    return bad("profile", "'backward_time_s' is given for " + std::to_string(timed) + " of " +
                              std::to_string(m.layers.size()) + " layers: give all or none");
  }
  if (timed != 0 && !m.measured_batch) {
    return bad("profile", "measured times need 'measured_batch_per_gpu'");
  }
  if (m.trainable_params() == 0) return bad("profile", "no trainable parameter");
  if (m.total_params() > kMaxModelParams) {
    return bad("profile", std::to_string(m.total_params()) +
                              " parameters in all, more than the limit of 2^44");
  }
  if (j.contains("total_params") && (!j["total_params"].is_number_integer() ||
                                     j["total_params"].get<std::int64_t>() != m.total_params())) {
    return bad("profile", "'total_params' " + j["total_params"].dump() +
                              " differs from the sum of numel " + std::to_string(m.total_params()));
  }
  std::set<std::string> names;
  for (const ParamTensor& p : m.params) {
    if (!names.insert(p.name).second) return bad("profile", "duplicate tensor '" + p.name + "'");
  }
  return {};
}

Expected<ModelProfile> parse_json(const json& j) {
  ModelProfile m;
  TT_TRY_VOID(parse_header(j, m));
  for (std::size_t i = 0; i < j["layers"].size(); ++i) {
    TT_TRY(LayerProfile l, parse_layer(j["layers"][i], "layers[" + std::to_string(i) + "]"));
    m.layers.push_back(std::move(l));
  }
  const int n = static_cast<int>(m.layers.size());
  for (std::size_t i = 0; i < j["params"].size(); ++i) {
    TT_TRY(ParamTensor p, parse_param(j["params"][i], "params[" + std::to_string(i) + "]", n));
    m.params.push_back(std::move(p));
  }
  TT_TRY_VOID(check_consistency(j, m));
  return m;
}

}  // namespace

std::int64_t ModelProfile::total_params() const {
  std::int64_t n = 0;
  for (const ParamTensor& p : params) n += p.numel;
  return n;
}

std::int64_t ModelProfile::trainable_params() const {
  std::int64_t n = 0;
  for (const ParamTensor& p : params) n += p.trainable ? p.numel : 0;
  return n;
}

Expected<ModelProfile> parse_model_profile(const std::string& text, const std::string& origin) {
  // The JSON library throws on malformed text and on type mismatches; both become errors here.
  try {
    const Expected<json> j = parse_checked_json<json>(text);
    if (!j) return fail(Errc::ParseError, origin + ": " + j.error().message);
    auto m = parse_json(*j).context(origin);
    if (m) m->json = j->dump();
    return m;
  } catch (const json::exception& e) {
    return fail(Errc::ParseError, origin + ": " + e.what());
  }
}

std::vector<std::string> builtin_model_names() {
  std::vector<std::string> names;
  for (const EmbeddedFile& m : detail::embedded_models()) names.emplace_back(m.name);
  std::sort(names.begin(), names.end());
  return names;
}

Expected<ModelProfile> load_model_profile(const std::string& name_or_path) {
  const bool is_file =
      name_or_path.find('/') != std::string::npos ||
      (name_or_path.size() > 5 && name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0);
  if (is_file) {
    TT_TRY(const std::string text, read_input_file(name_or_path, "model profile"));
    return parse_model_profile(text, name_or_path);
  }
  for (const EmbeddedFile& m : detail::embedded_models()) {
    if (name_or_path == m.name) {
      return parse_model_profile(m.text(), std::string("model ") + m.name);
    }
  }
  std::string known;
  for (const std::string& n : builtin_model_names()) known += (known.empty() ? "" : ", ") + n;
  return fail(Errc::NotFound, "unknown model '" + name_or_path + "' (known models: " + known +
                                  "; or give a profile FILE.json, see docs/model-profile.md)");
}

Expected<ModelProfile> at_sequence_length(const ModelProfile& model, std::int64_t seq_len) {
  const std::string flag = "--seq-len " + std::to_string(seq_len);
  if (seq_len < 1 || seq_len > kMaxSequenceLength) {
    return fail(Errc::InvalidArgument, "--seq-len must be in [1, " +
                                           std::to_string(kMaxSequenceLength) + "], got " +
                                           std::to_string(seq_len));
  }
  if (model.has_measured_times()) {
    return fail(Errc::InvalidArgument,
                flag + ": model '" + model.name +
                    "' has measured times, taken at its own sequence length; profile it at " +
                    std::to_string(seq_len) + " tokens instead");
  }
  json j = json::parse(model.json, nullptr, false);
  if (j.is_discarded() || !j.contains("transformer") || !j["transformer"].is_object() ||
      !j["transformer"].contains("seq_len") || !j["transformer"]["seq_len"].is_number_integer() ||
      j["transformer"]["seq_len"].get<std::int64_t>() < 1) {
    return fail(Errc::InvalidArgument,
                flag + ": model '" + model.name +
                    "' states no transformer shape with the seq_len its FLOPs were counted at "
                    "(its \"transformer\" object, docs/model-profile.md), so they cannot be "
                    "rescaled");
  }
  const auto from = j["transformer"]["seq_len"].get<std::int64_t>();
  const double ratio = static_cast<double>(seq_len) / static_cast<double>(from);
  std::vector<bool> owns_params(model.layers.size(), false);
  for (const ParamTensor& p : model.params) owns_params[static_cast<std::size_t>(p.layer)] = true;
  json& layers = j["layers"];
  for (std::size_t i = 0; i < layers.size() && i < owns_params.size(); ++i) {
    if (!layers[i].contains("forward_flops")) continue;
    const double scale = owns_params[i] ? ratio : ratio * ratio;
    layers[i]["forward_flops"] = layers[i]["forward_flops"].get<double>() * scale;
  }
  j["transformer"]["seq_len"] = seq_len;
  j["input"] = "sequence length " + std::to_string(seq_len);
  j["description"] = j.value("description", std::string()) + "; at sequence length " +
                     std::to_string(seq_len) + " (FLOPs rescaled from " + std::to_string(from) +
                     ": per-token layers x " + std::to_string(seq_len) + "/" +
                     std::to_string(from) + ", attention matmuls by its square)";
  return parse_model_profile(j.dump(), model.name + " at " + flag);
}

}  // namespace topotune::tune
