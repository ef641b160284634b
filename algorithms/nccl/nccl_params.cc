#include "algorithms/nccl/nccl_params.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/duplicate_key_check.h"
#include "core/input_file.h"

#ifndef TOPOTUNE_DATA_DIR
#define TOPOTUNE_DATA_DIR "data"
#endif

namespace topotune::algo {
namespace {

constexpr const char* kSchema = "topotune.nccl_model/1";
// NCCL's constants as NVIDIA/nccl v2.30.7-1 ships them (the defaults: what a run of an unknown
// NCCL version is assumed to use). Values per release, with the tag each changed in:
// docs/nccl-model.md "NCCL's constants by release".
constexpr const char* kBaseLat =
    "NVIDIA/nccl v2.30.7-1 src/graph/tuning.cc ncclTunerConstantsDefaults baseLatencies "
    "(unchanged since v2.23.4-1)";
constexpr const char* kNvlinkLat =
    "NVIDIA/nccl v2.30.7-1 src/graph/tuning.cc ncclTunerConstantsDefaults "
    "hwLatencies[NCCL_HW_NVLINK] (unchanged since v2.23.4-1)";
constexpr const char* kNetLat =
    "NVIDIA/nccl v2.30.7-1 src/graph/tuning.cc ncclTunerConstantsDefaults hwLatencies[NCCL_HW_NET] "
    "(NVLSTree/Simple 20.9 since v2.28.9-1, 14 in v2.19.1-1..v2.28.7-1; others unchanged since "
    "v2.23.4-1)";
constexpr const char* kLlMax =
    "NVIDIA/nccl v2.30.7-1 src/graph/tuning.cc ncclTunerConstantsDefaults llMaxBws (Hopper row "
    "since v2.21.5-1, Blackwell row since v2.25.1-1)";
constexpr const char* kFitted =
    "fitted by `topotune calibrate` on all 7 entries of validation/nccl_tests_calibration.json "
    "(scripts/accuracy.py --refit)";

const char* const kAlgoKeys[kNumNcclAlgos] = {"ring", "tree", "nvls", "nvls_tree"};
const char* const kProtoKeys[kNumNcclProtos] = {"LL", "LL128", "Simple"};
const char* const kArchKeys[kNumArchRows] = {"volta", "ampere", "hopper", "blackwell"};
const char* const kNicKeys[kNumNicClasses] = {"efa_srd", "efa_rdma", "infiniband", "tcp"};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

NcclModelParams make_defaults() {
  NcclModelParams p;
  // Ring, Tree, NVLS, NVLSTree x LL, LL128, Simple (NVLS variants: Simple only).
  p.base_latency_us = {{{6.6, 14.0, 8.4}, {6.8, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}}};
  p.nvlink_latency_us = {{{0.6, 1.9, 3.4}, {0.6, 1.25, 4.0}, {0, 0, 25}, {0, 0, 25}}};
  p.net_latency_us = {{{2.7, 4.0, 14}, {5.0, 8.5, 14}, {0, 0, 18}, {0, 0, 20.9}}};
  p.ll_max_busbw_GBps = {{{39, 39, 20.4}, {87.7, 22.5, 19}, {141, 45, 35}, {282, 90, 70}}};
  p.proto_efficiency = {0.5, 0.9375, 1.0};
  p.nvlink_channel_GBps = 20;
  p.max_channels = 32;
  p.nvls_channels = 16;
  p.buffer_bytes = {524288, 4915200, 4194304};
  // Fitted (sources in the parameter table); refreshed by scripts/accuracy.py --refit.
  p.nvlink_efficiency = 0.878627;
  p.nvls_efficiency = 0.792191;
  p.pcie_efficiency = 0.8;
  p.net_efficiency = {1, 0.798578, 1, 0.6};
  p.nic_latency_us = {42.4513, 28.2506, 0.5, 50.0};
  p.host_staging_efficiency = 0.724842;
  p.host_staging_latency_us = 3.465;
  p.gdr_flush_latency_us = 36.9998;
  p.launch_overhead_per_gpu_us = 2.86206;
  p.chunk_bytes = {178145, 69879.7, 1.04817e+06};
  p.step_exposed = {0.0139356, 0.125249, 0.413729};
  p.nvlink_latency_scale = 1.13605;
  p.net_latency_scale = 0.604438;
  return p;
}

using Ref = std::function<double*(NcclModelParams&)>;

/// Appends one row to the parameter table.
struct TableBuilder {
  std::vector<ParamInfo>& t;
  void operator()(std::string name, std::string source, bool fit, double lo, double hi,
                  Ref ref) const {
    t.push_back(ParamInfo{std::move(name), std::move(source), fit, lo, hi, std::move(ref)});
  }
};

// NCCL's constants: copied, never fitted.
void add_nccl_constants(const TableBuilder& add) {
  for (int a = 0; a < kNumNcclAlgos; ++a) {
    for (int q = 0; q < kNumNcclProtos; ++q) {
      const std::string suffix = std::string(kAlgoKeys[a]) + "." + kProtoKeys[q];
      add("nccl.base_latency_us." + suffix, kBaseLat, false, 0, 1e3,
          [a, q](NcclModelParams& p) { return &p.base_latency_us[a][q]; });
      add("nccl.nvlink_latency_us." + suffix, kNvlinkLat, false, 0, 1e3,
          [a, q](NcclModelParams& p) { return &p.nvlink_latency_us[a][q]; });
      add("nccl.net_latency_us." + suffix, kNetLat, false, 0, 1e3,
          [a, q](NcclModelParams& p) { return &p.net_latency_us[a][q]; });
    }
  }
  for (int r = 0; r < kNumArchRows; ++r) {
    for (int s = 0; s < 3; ++s) {
      static const char* const kScale[3] = {"1node", "2nodes", "4nodes"};
      add(std::string("nccl.ll_max_busbw_GBps.") + kArchKeys[r] + "." + kScale[s], kLlMax, false,
          1, 1e4, [r, s](NcclModelParams& p) { return &p.ll_max_busbw_GBps[r][s]; });
    }
  }
  for (int q = 0; q < kNumNcclProtos; ++q) {
    add(std::string("nccl.proto_efficiency.") + kProtoKeys[q],
        "NVIDIA/nccl v2.30.7-1 src/include/device.h: LL lines of 8 bytes carry 4 data bytes "
        "(union ncclLLFifoLine: data1, flag1, data2, flag2); LL128 NCCL_LL128_DATAELEMS = "
        "NCCL_LL128_LINEELEMS - 1 (120 of 128 bytes)",
        false, 0.1, 1, [q](NcclModelParams& p) { return &p.proto_efficiency[q]; });
  }
  add("nccl.nvlink_channel_GBps", "NVIDIA/nccl v2.30.7-1 src/graph/topo.h SM80_NVLINK_BW 20.0 (SM90 20.6, "
      "SM100 40.1 per link; one figure is used for every generation)", false,
      1, 1e3, [](NcclModelParams& p) { return &p.nvlink_channel_GBps; });
  add("nccl.max_channels", "NVIDIA/nccl src/include/device.h MAXCHANNELS: 32 in v2.24.3-1 and "
      "before, 64 in v2.28.7-1 and after (the model keeps 32: the search's channel counts stay "
      "below it on every catalog instance)", false, 1, 64,
      [](NcclModelParams& p) { return &p.max_channels; });
  add("nccl.nvls_channels", "NVIDIA/nccl v2.30.7-1 src/transport/nvls.cc NVLS_NCHANNELS_SM90 16 "
      "(NCCL_NVLS_NCHANNELS overrides)",
      false, 1, 64, [](NcclModelParams& p) { return &p.nvls_channels; });
  for (int q = 0; q < kNumNcclProtos; ++q) {
    add(std::string("nccl.buffer_bytes.") + kProtoKeys[q],
        "NVIDIA/nccl v2.30.7-1 src/init.cc DEFAULT_LL_BUFFSIZE (NCCL_LL_LINES_PER_THREAD 8 x "
        "512 threads x NCCL_STEPS 8 x 16 B), DEFAULT_LL128_BUFFSIZE (NCCL_LL128_ELEMS_PER_THREAD "
        "120 x 640 threads x 8 steps x 8 B), DEFAULT_BUFFSIZE (1 << 22)",
        false, 4096, 1e9, [q](NcclModelParams& p) { return &p.buffer_bytes[q]; });
  }
}

// Physical parameters: fitted by calibration unless stated as an assumption.
void add_physical(const TableBuilder& add) {
  add("nvlink_efficiency", kFitted, true, 0.3, 0.97,
      [](NcclModelParams& p) { return &p.nvlink_efficiency; });
  add("nvls_efficiency", kFitted, true, 0.3, 0.97,
      [](NcclModelParams& p) { return &p.nvls_efficiency; });
  add("pcie_efficiency", "assumed: PCIe x16 TLP/DLLP overhead ~20% (no PCIe-only entry to fit)",
      false, 0.3, 0.97, [](NcclModelParams& p) { return &p.pcie_efficiency; });
  for (int c = 0; c < kNumNicClasses; ++c) {
    const bool tcp = c == static_cast<int>(NicClass::Tcp);
    add(std::string("net_efficiency.") + kNicKeys[c],
        tcp ? "assumed (no TCP entry to fit)" : kFitted, !tcp, 0.3, 1.0,
        [c](NcclModelParams& p) { return &p.net_efficiency[c]; });
    add(std::string("nic_latency_us.") + kNicKeys[c],
        tcp ? "assumed (no TCP entry to fit)" : kFitted, !tcp, 0.5, 500,
        [c](NcclModelParams& p) { return &p.nic_latency_us[c]; });
  }
  add("host_staging_efficiency", kFitted, true, 0.3, 1.0,
      [](NcclModelParams& p) { return &p.host_staging_efficiency; });
  add("host_staging_latency_us", kFitted, true, 0.1, 200,
      [](NcclModelParams& p) { return &p.host_staging_latency_us; });
  add("gdr_flush_latency_us", kFitted, true, 0.1, 200,
      [](NcclModelParams& p) { return &p.gdr_flush_latency_us; });
  add("launch_overhead_per_gpu_us", kFitted, true, 0.1, 50,
      [](NcclModelParams& p) { return &p.launch_overhead_per_gpu_us; });
  for (int q = 0; q < kNumNcclProtos; ++q) {
    add(std::string("chunk_bytes.") + kProtoKeys[q], kFitted, true, 4096, 1.6e7,
        [q](NcclModelParams& p) { return &p.chunk_bytes[q]; });
    add(std::string("step_exposed.") + kProtoKeys[q], kFitted, true, 0.001, 1.0,
        [q](NcclModelParams& p) { return &p.step_exposed[q]; });
  }
  add("nvlink_latency_scale", kFitted, true, 0.2, 5,
      [](NcclModelParams& p) { return &p.nvlink_latency_scale; });
  add("net_latency_scale", kFitted, true, 0.2, 5,
      [](NcclModelParams& p) { return &p.net_latency_scale; });
}

// Builds the name -> member table once. Names are stable: they are the JSON keys.
std::vector<ParamInfo> make_table() {
  std::vector<ParamInfo> t;
  const TableBuilder add{t};
  add_nccl_constants(add);
  add_physical(add);
  return t;
}

}  // namespace

const char* nccl_algo_name(NcclAlgo a) { return kAlgoKeys[static_cast<int>(a)]; }
const char* nccl_proto_name(NcclProto p) { return kProtoKeys[static_cast<int>(p)]; }
const char* nic_class_name(NicClass c) { return kNicKeys[static_cast<int>(c)]; }

Expected<NcclAlgo> parse_nccl_algo(const std::string& name) {
  const std::string n = lower(name);
  if (n == "ring") return NcclAlgo::Ring;
  if (n == "tree") return NcclAlgo::Tree;
  if (n == "nvls") return NcclAlgo::Nvls;
  if (n == "nvls_tree" || n == "nvlstree") return NcclAlgo::NvlsTree;
  return fail(Errc::InvalidArgument,
              "unknown NCCL algorithm '" + name + "' (ring, tree, nvls, nvls_tree)");
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
    if (value > 0 && value <= 1) return {};
    return fail(Errc::ParseError,
                "parameter '" + info.name + "' must be in (0, 1], got " + std::to_string(value));
  }
  const double lo = info.fittable ? info.min / 10 : info.min;
  const double hi = info.fittable ? info.max * 10 : info.max;
  if (value >= lo && value <= hi) return {};
  char buf[160];
  std::snprintf(buf, sizeof buf, "parameter '%s' must be in [%g, %g], got %g", info.name.c_str(),
                lo, hi, value);
  return fail(Errc::ParseError, buf);
}

}  // namespace

Expected<NcclModelParams> params_from_json(const std::string& text, const std::string& origin,
                                           const NcclModelParams& base) {
  nlohmann::json j;
  DuplicateKeyCheck<nlohmann::json> dup;
  try {
    j = nlohmann::json::parse(text, dup.callback());
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 2e308
    return fail(Errc::ParseError, origin + ": malformed JSON: " + e.what());
  }
  if (dup.found()) return fail(Errc::ParseError, origin + ": " + dup.message());
  // A schema that is not a string ({"schema": 5}) is "not an NCCL model file", not a throw.
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

std::string data_dir() {
  if (const char* env = std::getenv("TOPOTUNE_DATA_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return TOPOTUNE_DATA_DIR;
}

Expected<NcclModelParams> load_params_file(const std::string& path, const NcclModelParams& base) {
  TT_TRY(const std::string text, read_input_file(path, "NCCL model parameters"));
  return params_from_json(text, path, base);
}

}  // namespace topotune::algo
