#pragma once
// The cases `topotune calibrate` fits, from measured runs: a run's `nccl` rows are a case of
// the NCCL model (calibration/calibration.h) on the run's NcclSystem, its other rows (topotune's
// schedules, `mpi`) a case of the link classes (calibration/link_fit.h) on its cluster. Which
// system or cluster, NCCL version and NCCL_ALGO a run had is the caller's (calibrate's per-run
// options and the logs); these functions check the run against it and build the case.

#include <string>
#include <utility>

#include "algorithms/nccl/nccl_predictor.h"
#include "algorithms/nccl/nccl_system.h"
#include "calibration/calibration.h"
#include "calibration/link_fit.h"
#include "calibration/validation.h"
#include "core/expected.h"
#include "measurement/measurement.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// The run's rows split by the model that predicts them (row_model): first the `nccl` rows,
/// then the others, each in the file's order; each half keeps everything else of the run.
std::pair<rt::Measurement, rt::Measurement> split_by_model(const rt::Measurement& run);

/// The NCCL model's case of `run` (named `name`: its file) on `system`, with NCCL's default
/// options (the caller sets the run's version and NCCL_ALGO). InvalidArgument when the system
/// has another rank count than the run.
Expected<CalibrationCase> nccl_calibration_case(const std::string& name, const rt::Measurement& run,
                                                algo::NcclSystem system);

/// The link classes' case of `run` on `cluster` (whose link parameters are the fit's start),
/// with the run's channels and chunks (absent: 1) and no memory budget (the caller sets one).
/// InvalidArgument when the cluster has another rank count than the run.
Expected<LinkFitCase> link_calibration_case(const std::string& name, const rt::Measurement& run,
                                            topo::ClusterSpec cluster);

}  // namespace topotune::tune
