#pragma once
// Calibration for the simulator and the closed forms: which calibrated quantities are physical
// link properties (and so become topo::ClusterSpec::link_params) and which are NCCL-protocol
// specific (and stay inside the NCCL predictor). docs/calibration.md has the table and why.
//
// A calibration file (schema "topotune.nccl_model/2", written by `topotune calibrate`) holds
// the NCCL model's parameters and may carry a "link_params" section in the cluster file's
// format. Applying it to a cluster is two steps, in this order:
//   1. map the model's physical parameters onto the link classes:
//        nvlink  efficiency = nvlink_efficiency
//        pcie    efficiency = pcie_efficiency
//        network efficiency = net_efficiency.<the cluster's NIC class>
//        uplink  efficiency = net_efficiency.<the cluster's NIC class> (the same packets)
//        network latency    = nic_latency_us.<NIC class> / 2 (a crossing has two NIC<->switch hops)
//   2. apply the file's "link_params" section field by field (explicit values win).
// Everything else (the scales of NCCL's latency tables, engine rates, the in-flight window,
// NVLS efficiency and latencies, host staging, launch overhead) describes how NCCL's kernels
// and proxy move data, not the links, and is not applied.

#include <string>

#include "algorithms/nccl/nccl_params.h"
#include "core/expected.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// A calibration file as the topology side needs it.
struct LinkCalibration {
  algo::NcclModelParams model;   ///< base model with the file's parameters applied
  std::string link_params_json;  ///< the file's "link_params" object as JSON text; "" if none
};

/// Network hops (NIC<->switch links) on one inter-node crossing in a single segment: the NCCL
/// model's per-crossing NIC latency is spread evenly over them.
inline constexpr int kNetworkHopsPerCrossing = 2;

/// Parses a calibration file's text on top of `base` (the NCCL model before the file).
/// Errors (unknown keys, bad values, malformed JSON) name `origin`.
Expected<LinkCalibration> parse_link_calibration(const std::string& text, const std::string& origin,
                                                 const algo::NcclModelParams& base);

/// Step 1 above: maps the physical parameters of `model` onto `spec.link_params`.
Expected<void> apply_model_to_links(const algo::NcclModelParams& model, topo::ClusterSpec& spec);

/// Steps 1 and 2: what `--calibration FILE` does to the cluster in simulate, predict and plan.
Expected<void> apply_calibration(const LinkCalibration& calibration, topo::ClusterSpec& spec,
                                 const std::string& origin);

}  // namespace topotune::tune
