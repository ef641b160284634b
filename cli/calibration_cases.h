#pragma once
// The runs `topotune calibrate` fits, from its per-run options: each file (an nccl-tests log or
// a measurement JSON) with its instance or cluster, node count, NCCL version, NCCL_ALGO and
// collective (one value for every run, or one per run). This file reads the files and resolves each
// run's options and cluster; calibration/calibration_cases.h splits the rows by model (`nccl`
// rows for the NCCL model, the others for the link classes) and checks and builds the cases.

#include <string>
#include <vector>

#include "calibration/calibration.h"
#include "calibration/link_fit.h"
#include "core/expected.h"

namespace topotune::cli {

/// The runs and their per-run options, as given on the command line.
struct CalibrationRuns {
  std::vector<std::string> logs;      ///< --nccl-tests
  std::vector<std::string> measured;  ///< --measured
  std::vector<std::string> instances;
  std::vector<int> nodes;
  std::vector<std::string> versions;
  std::vector<std::string> algos;
  std::vector<std::string> collectives;  ///< --collective ('' = the log's own)
  std::vector<std::string> clusters;
};

/// The cases of both fits, in the runs' order (logs first).
struct CalibrationCases {
  std::vector<tune::CalibrationCase> nccl;
  std::vector<tune::LinkFitCase> links;
};

/// Loads every run and builds its cases; errors name the file.
Expected<CalibrationCases> load_calibration_cases(const CalibrationRuns& runs);

}  // namespace topotune::cli
