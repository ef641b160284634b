#pragma once
// Fitting link-class parameters (latency per hop, efficiency) to measured runs of topotune's
// own algorithms, with the flow simulator as the model: `topotune calibrate --measured FILE
// --cluster CLUSTER` on `topotune measure` output (e.g. from an emulated cluster). The result
// is a calibration file's "link_params" section (docs/calibration.md).
//
// Objective and optimiser are those of the NCCL fit (calibration/calibration.h): the mean over
// runs of the mean squared log(measured / predicted time), sizes >= 1 MiB weighing twice;
// a deterministic bounded coordinate descent in log-parameter space. One parameter set for all
// runs: the classes are shared, whatever the instance. Efficiencies of classes in series on
// every route are not separately identifiable (only the narrowest link counts): the descent
// moves whichever helps and leaves the other at its start value.

#include <array>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "core/units.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// One measured (algorithm, size) point: `algorithm` is a `topotune measure` name.
struct LinkFitPoint {
  std::string algorithm;
  Bytes bytes{0};
  sched::DataType dtype = sched::DataType::F32;
  double time_us = 0;
};

/// One measured run on one cluster; the cluster's link_params are the starting values.
struct LinkFitCase {
  std::string name;
  topo::ClusterSpec cluster;
  algo::MemoryBudget memory;  ///< refuse schedules larger than this (0: unlimited)
  int channels = 1;
  int chunks = 1;
  sched::Collective collective = sched::Collective::Allreduce;
  std::vector<LinkFitPoint> points;
};

/// What to fit and for how long.
struct LinkFitOptions {
  /// "<class>.efficiency" / "<class>.latency_us" names; empty = both fields of every class
  /// that carries traffic in the first run's simulation.
  std::vector<std::string> parameters;
  int max_rounds = 30;
};

/// The fitted parameters (every class; the unfitted ones at their start values).
struct LinkFitResult {
  std::array<topo::LinkClassParams, topo::kNumLinkKinds> params{};
  std::vector<std::string> fitted;  ///< names of the free parameters
  double loss_before = 0;           ///< mean squared log-time error at the start
  double loss_after = 0;
  int evaluations = 0;  ///< loss evaluations (each simulates every point)
};

/// Predicted times (µs) of a case's points with `params` in place of its link parameters.
Expected<std::vector<double>> predict_link_case(
    const LinkFitCase& c, const std::array<topo::LinkClassParams, topo::kNumLinkKinds>& params);

/// Fits; starts from the first case's link parameters. Errors: no cases or points, unknown
/// parameter names, unpredictable rows (e.g. `nccl`, which the NCCL fit handles).
Expected<LinkFitResult> fit_link_params(const std::vector<LinkFitCase>& cases,
                                        const LinkFitOptions& options);

/// The result as a "link_params" object (JSON text) with every field of every class, fitted
/// or not: applied after the NCCL-model mapping (docs/calibration.md), it overrides all of it,
/// so `--calibration` reproduces exactly the cluster the fit ended with (an emulated cluster's
/// measured link parameters are not replaced by NCCL-model figures).
std::string link_params_section(const LinkFitResult& result);

}  // namespace topotune::tune
