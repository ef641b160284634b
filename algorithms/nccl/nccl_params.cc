#include "algorithms/nccl/nccl_params.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "algorithms/nccl/embedded_nccl_model.h"
#include "core/assert.h"
#include "core/checked_json.h"
#include "core/enum_names.h"
#include "core/input_file.h"
#include "core/string_printf.h"
#include "topology/cluster_spec.h"

namespace topotune::algo {
namespace {

constexpr const char* kSchema = "topotune.nccl_model/2";

// The names are the data file's keys; "nvlstree" is NCCL_ALGO's own spelling.
constexpr auto kAlgoNames = enum_names<NcclAlgo>({{NcclAlgo::Ring, "ring"},
                                                  {NcclAlgo::Tree, "tree"},
                                                  {NcclAlgo::Nvls, "nvls"},
                                                  {NcclAlgo::NvlsTree, "nvls_tree"},
                                                  {NcclAlgo::Pat, "pat"},
                                                  {NcclAlgo::NvlsTree, "nvlstree", true}});
constexpr auto kProtoNames = enum_names<NcclProto>(
    {{NcclProto::LL, "LL"}, {NcclProto::LL128, "LL128"}, {NcclProto::Simple, "Simple"}});
constexpr auto kNicNames = enum_names<NicClass>({{NicClass::EfaSrd, "efa_srd"},
                                                 {NicClass::EfaRdma, "efa_rdma"},
                                                 {NicClass::InfiniBand, "infiniband"},
                                                 {NicClass::Tcp, "tcp"},
                                                 {NicClass::Tcpx, "tcpx"},
                                                 {NicClass::Tcpxo, "tcpxo"},
                                                 {NicClass::Roce, "roce"}});

// The class whose net_efficiency a class reads: RoCE has none of its own (net_efficiency_of).
constexpr NicClass efficiency_class(NicClass c) {
  return c == NicClass::Roce ? NicClass::InfiniBand : c;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

using Ref = std::function<double*(NcclModelParams&)>;

/// Appends one row to the parameter table.
struct TableBuilder {
  std::vector<ParamInfo>& t;
  void operator()(std::string name, bool fit, double lo, double hi, Ref ref) const {
    t.push_back(ParamInfo{std::move(name), "", fit, lo, hi, std::move(ref)});
  }
};

// Physical parameters: fitted by calibration unless the data file states an assumption. The
// bounds are physical: efficiencies are shares of a nominal rate, latencies microseconds.
void add_physical(const TableBuilder& add) {
  using P = NcclModelParams;
  add("nvlink_efficiency", true, 0.3, 0.97, [](P& p) { return &p.nvlink_efficiency; });
  add("nvls_efficiency", true, 0.2, 0.97, [](P& p) { return &p.nvls_efficiency; });
  add("nvls_tree_efficiency", true, 0.2, 0.97, [](P& p) { return &p.nvls_tree_efficiency; });
  add("pcie_efficiency", false, 0.3, 0.97, [](P& p) { return &p.pcie_efficiency; });
  for (int c = 0; c < kNumNicClasses; ++c) {
    // Assumed, not fitted: NCCL's sockets (the TCP runs share no physics) and GPUDirect-TCPX
    // (its one log is an all_gather whose ~1 ms floor no hop latency reproduces).
    const bool assumed =
        c == static_cast<int>(NicClass::Tcp) || c == static_cast<int>(NicClass::Tcpx);
    const std::string nic = kNicNames.name_of(static_cast<NicClass>(c));
    if (efficiency_class(static_cast<NicClass>(c)) == static_cast<NicClass>(c)) {
      add("net_efficiency." + nic, !assumed, 0.3, 1.0, [c](P& p) { return &p.net_efficiency[c]; });
    }
    add("nic_latency_us." + nic, !assumed, 0.1, 200, [c](P& p) { return &p.nic_latency_us[c]; });
  }
  add("engine.ring.Simple", true, 0.05, 5, [](P& p) { return &p.ring_simple_engine; });
  add("engine.tree.Simple", true, 0.1, 3, [](P& p) { return &p.tree_simple_engine; });
  add("engine.ring.LL128", true, 0.1, 3, [](P& p) { return &p.ring_ll128_engine; });
  add("engine.tree.LL128", true, 0.1, 3, [](P& p) { return &p.tree_ll128_engine; });
  add("engine.LL", true, 0.05, 3, [](P& p) { return &p.ll_engine; });
  add("base_latency_scale", true, 0.2, 5, [](P& p) { return &p.base_latency_scale; });
  add("nvlink_latency_scale", true, 0.2, 5, [](P& p) { return &p.nvlink_latency_scale; });
  add("net_latency_scale", true, 0.2, 5, [](P& p) { return &p.net_latency_scale; });
  add("nvls_latency_us", true, 0.1, 200, [](P& p) { return &p.nvls_latency_us; });
  add("nvls_chunk_latency_us", true, 0.01, 20, [](P& p) { return &p.nvls_chunk_latency_us; });
  add("net_window", true, 0.05, 10, [](P& p) { return &p.net_window; });
  add("host_staging_efficiency", true, 0.2, 1.0, [](P& p) { return &p.host_staging_efficiency; });
  add("host_staging_latency_us", true, 0.1, 200, [](P& p) { return &p.host_staging_latency_us; });
  add("launch_overhead_per_gpu_us", true, 0.1, 50,
      [](P& p) { return &p.launch_overhead_per_gpu_us; });
  for (int c = 0; c < kNumNicClasses; ++c) {
    // Fitted where runs of the class pin it down: rings that take LL128 across nodes on Hopper
    // or later and are paced by it. Assumed for the others: no run over NCCL's sockets or
    // GPUDirect-TCPX takes LL128 (TCPX's setup sets Simple), EFA without RDMA write (v1) ran on
    // A100s only (no system-scope fence), and TCPXO's LL128 rows are bound by the network.
    const bool assumed = c != static_cast<int>(NicClass::EfaRdma) &&
                         c != static_cast<int>(NicClass::InfiniBand) &&
                         c != static_cast<int>(NicClass::Roce);
    const std::string nic = kNicNames.name_of(static_cast<NicClass>(c));
    add("ring_net_step_us." + nic, !assumed, 0.1, 200,
        [c](P& p) { return &p.ring_net_step_us[c]; });
  }
  // Assumed from its sources (GCP's TCPX setups and Linux's default timer slack): one log.
  add("tcpx_tx_sleep_us", false, 0, 1000, [](P& p) { return &p.tcpx_tx_sleep_us; });
}

// The text of data/nccl_model.json as the build embedded it.
std::string embedded_text() {
  const std::vector<EmbeddedFile> files = detail::embedded_nccl_model_files();
  TT_ASSERT(files.size() == 1, "the build embeds exactly data/nccl_model.json");
  return files[0].text();
}

nlohmann::json embedded_file() { return nlohmann::json::parse(embedded_text()); }

// Builds the name -> member table once. Names are stable: they are the JSON keys.
std::vector<ParamInfo> make_table() {
  std::vector<ParamInfo> t;
  const TableBuilder add{t};
  add_physical(add);
  const nlohmann::json file = embedded_file();
  for (ParamInfo& info : t) {
    const nlohmann::json& entry = file.at("parameters").at(info.name);
    TT_ASSERT(entry.contains("source"), "data/nccl_model.json: a parameter without its source");
    info.source = entry.at("source").get<std::string>();
  }
  return t;
}

// The built-in parameter set: the embedded file applied on an all-zero set. The file must set
// every parameter (a unit test also checks it); the build embeds it, so a failure is a bug.
NcclModelParams make_defaults() {
  const nlohmann::json file = embedded_file();
  TT_ASSERT(file.at("parameters").size() == param_table().size(),
            "data/nccl_model.json must set every parameter of the NCCL model");
  Expected<NcclModelParams> p =
      params_from_json(embedded_text(), "data/nccl_model.json", NcclModelParams{});
  TT_ASSERT(p.has_value(), "data/nccl_model.json (embedded) does not parse");
  return *p;
}

}  // namespace

const char* nccl_algo_name(NcclAlgo a) { return kAlgoNames.name_of(a); }
const char* nccl_proto_name(NcclProto p) { return kProtoNames.name_of(p); }
const char* nic_class_name(NicClass c) { return kNicNames.name_of(c); }

double net_efficiency_of(const NcclModelParams& p, NicClass c) {
  return p.net_efficiency[static_cast<int>(efficiency_class(c))];
}

Expected<NcclAlgo> parse_nccl_algo(const std::string& name) {
  if (const std::optional<NcclAlgo> a = kAlgoNames.find(lower(name))) return *a;
  // Worded before the shared "known: ..." message; tests and scripts match it.
  return fail(Errc::InvalidArgument,
              "unknown NCCL algorithm '" + name + "' (" + kAlgoNames.names_text() + ")");
}

const NcclModelParams& default_params() {
  static const NcclModelParams kDefaults = make_defaults();
  return kDefaults;
}

const std::vector<ParamInfo>& param_table() {
  static const std::vector<ParamInfo> kTable = make_table();
  return kTable;
}

const ParamInfo* find_param(const std::string& name) {
  for (const ParamInfo& info : param_table()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string params_to_json(const NcclModelParams& p, const std::string& description) {
  nlohmann::ordered_json j;
  j["schema"] = kSchema;
  j["description"] = description;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  NcclModelParams copy = p;
  for (const ParamInfo& info : param_table()) {
    params[info.name] = {{"value", *info.ref(copy)}, {"source", info.source}};
  }
  j["parameters"] = std::move(params);
  return j.dump(2) + "\n";
}

namespace {

// Physically meaningful bounds, so that no calibration value makes a prediction NaN or inf:
// efficiencies are shares of a nominal rate (0 would stall the model, > 1 exceeds the wire);
// NCCL's constants (channel counts, buffer sizes, latencies) stay in the table's range; fitted
// physical values may lie up to 10x outside their fitting bounds (a hand-made calibration),
// never at 0 where the fitting bound is positive (latencies 1e308 or max_channels 0 are refused).
Expected<void> check_range(const ParamInfo& info, double value) {
  if (info.name.find("efficiency") != std::string::npos) {
    // 0.1 % of a nominal rate is below any link that works; a denormal (5e-324) would make
    // times inf and shares NaN.
    if (value >= topo::kMinEfficiency && value <= 1) return {};
    return fail(Errc::ParseError, string_printf("parameter '%s' must be in [0.001, 1], got %g",
                                                info.name.c_str(), value));
  }
  const double lo = info.fittable ? info.min / 10 : info.min;
  const double hi = info.fittable ? info.max * 10 : info.max;
  if (value >= lo && value <= hi) return {};
  return fail(Errc::ParseError, string_printf("parameter '%s' must be in [%g, %g], got %g",
                                              info.name.c_str(), lo, hi, value));
}

}  // namespace

Expected<NcclModelParams> params_from_json(const std::string& text, const std::string& origin,
                                           const NcclModelParams& base) {
  nlohmann::json j;
  try {
    Expected<nlohmann::json> checked = parse_checked_json<nlohmann::json>(text);
    if (!checked) return fail(Errc::ParseError, origin + ": " + checked.error().message);
    j = std::move(*checked);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 2e308
    return fail(Errc::ParseError, origin + ": malformed JSON: " + e.what());
  }
  // A schema that is not a string ({"schema": 5}) is "not an NCCL model file", not a throw.
  if (j.is_object() && j.contains("schema") && j.at("schema") == "topotune.nccl_model/1") {
    return fail(Errc::ParseError,
                origin +
                    ": an NCCL model file of an older topotune (schema topotune.nccl_model/1)"
                    " whose parameters this model no longer has; recalibrate with `topotune"
                    " calibrate`");
  }
  if (!j.is_object() || !j.contains("schema") || j.at("schema") != kSchema) {
    return fail(Errc::ParseError, origin + ": not an NCCL model file (schema must be \"" +
                                      std::string(kSchema) + "\")");
  }
  if (!j.contains("parameters") || !j.at("parameters").is_object()) {
    return fail(Errc::ParseError, origin + ": missing object \"parameters\"");
  }
  // "link_params" is the topology's section of a calibration file (read by
  // tune::apply_calibration, docs/calibration.md); any other key is a typo.
  for (const auto& [key, unused] : j.items()) {
    if (key != "schema" && key != "description" && key != "parameters" && key != "link_params") {
      return fail(Errc::ParseError, origin + ": unknown key '" + key +
                                        "' (schema, description, parameters, link_params)");
    }
  }
  NcclModelParams out = base;
  for (const auto& [name, entry] : j.at("parameters").items()) {
    const ParamInfo* info = find_param(name);
    if (info == nullptr)
      return fail(Errc::ParseError, origin + ": unknown parameter '" + name + "'");
    const nlohmann::json* v = &entry;
    if (entry.is_object()) {
      if (!entry.contains("value")) {
        return fail(Errc::ParseError, origin + ": parameter '" + name + "' has no \"value\"");
      }
      v = &entry.at("value");
    }
    if (!v->is_number()) {
      return fail(Errc::ParseError, origin + ": parameter '" + name + "' must be a number");
    }
    const double value = v->get<double>();
    if (!std::isfinite(value) || value < 0) {
      return fail(Errc::ParseError, origin + ": parameter '" + name + "' must be finite and >= 0");
    }
    TT_TRY_VOID(check_range(*info, value).context(origin));
    *info->ref(out) = value;
  }
  return out;
}

Expected<NcclModelParams> load_params_file(const std::string& path, const NcclModelParams& base) {
  TT_TRY(const std::string text, read_input_file(path, "NCCL model parameters"));
  return params_from_json(text, path, base);
}

}  // namespace topotune::algo
