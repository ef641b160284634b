#include "calibration/link_calibration.h"

#include <nlohmann/json.hpp>

#include "algorithms/nccl/nccl_system.h"
#include "core/checked_json.h"
#include "core/units.h"

namespace topotune::tune {

Expected<LinkCalibration> parse_link_calibration(const std::string& text, const std::string& origin,
                                                 const algo::NcclModelParams& base) {
  LinkCalibration out;
  // params_from_json checks the schema, the top-level keys and every parameter.
  TT_TRY(out.model, algo::params_from_json(text, origin, base));
  try {
    const Expected<nlohmann::json> j = parse_checked_json<nlohmann::json>(text);
    if (!j) return fail(Errc::ParseError, origin + ": " + j.error().message);
    if (j->contains("link_params")) out.link_params_json = j->at("link_params").dump();
  } catch (const nlohmann::json::exception& e) {
    return fail(Errc::ParseError, origin + ": " + e.what());
  }
  return out;
}

Expected<void> apply_model_to_links(const algo::NcclModelParams& model, topo::ClusterSpec& spec) {
  // The NIC class decides which fitted network figures are this cluster's (EFA v1 and v2 and
  // InfiniBand differ); the same rule as the NCCL predictor's, so both see one class.
  // Only the NIC class: a cluster the NCCL model refuses (a partial NVLink domain) still gets
  // its links' parameters.
  const algo::NicClass cls = algo::nic_class_of(spec.instance);
  const int nic = static_cast<int>(cls);
  spec.params(topo::LinkKind::NvLink).efficiency = model.nvlink_efficiency;
  spec.params(topo::LinkKind::Pcie).efficiency = model.pcie_efficiency;
  const double efficiency = algo::net_efficiency_of(model, cls);
  spec.params(topo::LinkKind::Network).efficiency = efficiency;
  spec.params(topo::LinkKind::Uplink).efficiency = efficiency;
  spec.params(topo::LinkKind::Network).latency =
      microseconds(model.nic_latency_us[nic] / kNetworkHopsPerCrossing);
  spec.link_params_set = true;
  return {};
}

Expected<void> apply_calibration(const LinkCalibration& calibration, topo::ClusterSpec& spec,
                                 const std::string& origin) {
  TT_TRY_VOID(apply_model_to_links(calibration.model, spec));
  if (!calibration.link_params_json.empty()) {
    TT_TRY_VOID(topo::apply_link_params_json(calibration.link_params_json, origin, spec));
  }
  return {};
}

}  // namespace topotune::tune
