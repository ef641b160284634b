#include "calibration/calibration_file.h"

#include <nlohmann/json.hpp>

#include "calibration/link_calibration.h"
#include "core/input_file.h"
#include "core/utf8.h"
#include "topology/model_defaults.h"

namespace topotune::tune {
namespace {

// True while a cluster's link classes hold the placement's stated defaults (a catalog
// cluster, or a cluster file that sets none): nobody measured them.
bool default_links(const topo::ClusterSpec& spec) {
  const auto defaults = topo::default_link_params(spec.placement);
  for (int k = 0; k < topo::kNumLinkKinds; ++k) {
    const auto i = static_cast<std::size_t>(k);
    if (spec.link_params[i].latency.value != defaults[i].latency.value ||
        spec.link_params[i].efficiency != defaults[i].efficiency) {
      return false;
    }
  }
  return true;
}

}  // namespace

Expected<algo::NcclModelParams> load_nccl_model(const std::string& path) {
  algo::NcclModelParams params = algo::default_params();  // data/nccl_model.json, compiled in
  if (!path.empty()) {
    TT_TRY(params, algo::load_params_file(path, params));
  }
  return params;
}

Expected<void> apply_calibration_file(const std::string& path, topo::ClusterSpec& spec) {
  if (path.empty()) {
    // One model of time: the physical parameters the NCCL model was fitted with apply to
    // every algorithm on a cluster whose links nobody measured (docs/calibration.md).
    if (!default_links(spec)) return {};
    TT_TRY(const algo::NcclModelParams base, load_nccl_model(""));
    return apply_model_to_links(base, spec);
  }
  TT_TRY(const std::string text, read_input_file(path, "calibration file"));
  return apply_calibration_text(text, path, spec);
}

Expected<void> apply_calibration_text(const std::string& text, const std::string& origin,
                                      topo::ClusterSpec& spec) {
  TT_TRY(const algo::NcclModelParams base, load_nccl_model(""));
  TT_TRY(const LinkCalibration c, parse_link_calibration(text, origin, base));
  return apply_calibration(c, spec, origin);
}

Expected<LinkCalibration> load_start_calibration(const std::string& path) {
  TT_TRY(const std::string text, read_input_file(path, "calibration file"));
  TT_TRY(LinkCalibration start, parse_link_calibration(text, path, algo::default_params()));
  if (!start.link_params_json.empty()) {
    topo::ClusterSpec scratch;  // only the section's checks matter here, not a cluster
    TT_TRY_VOID(topo::apply_link_params_json(start.link_params_json, path, scratch));
  }
  return start;
}

std::string merge_link_params(const std::string& start, const std::string& fitted) {
  if (start.empty() || fitted.empty()) return start.empty() ? fitted : start;
  // Both were written by link_params_section or checked by load_start_calibration.
  nlohmann::ordered_json merged = nlohmann::ordered_json::parse(start);
  merged.merge_patch(nlohmann::ordered_json::parse(fitted));
  return merged.dump();
}

std::string calibration_file_text(const algo::NcclModelParams& params,
                                  const std::string& description,
                                  const std::string& link_params_json) {
  std::string text = algo::params_to_json(params, description);
  if (link_params_json.empty()) return text;
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  j["link_params"] = nlohmann::ordered_json::parse(link_params_json);
  return j.dump(2) + "\n";
}

std::string calibration_description(const std::vector<std::string>& nccl_runs,
                                    const std::vector<std::string>& link_runs) {
  std::string description = "calibrated by topotune calibrate on:";
  for (const std::string& name : nccl_runs) description += " " + to_valid_utf8(name);
  for (const std::string& name : link_runs) {
    description += " " + to_valid_utf8(name) + " (link classes)";
  }
  return description;
}

}  // namespace topotune::tune
