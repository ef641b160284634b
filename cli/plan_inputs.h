#pragma once
// plan's flags and how they become the planner's typed inputs (planning/plan.h): the cluster
// with --calibration's link classes, the NCCL parameters, the model, the compute figures, the
// search's restrictions. Files are read once (a FIFO or `<(...)` has no second reading).

#include <string>
#include <vector>

#include "cli/cluster_flags.h"
#include "cli/output_format.h"
#include "core/expected.h"
#include "planning/plan.h"

namespace topotune::cli {

/// The flags of `topotune plan`.
struct PlanArgs {
  ClusterFlags cluster;
  std::string model = tune::kDefaultModel;
  int batch = tune::kDefaultBatchPerGpu;  ///< --batch-per-gpu, used when batch_given
  bool batch_given = false;               ///< false: the profile's measured batch, else `batch`
  std::int64_t seq_len = 0;               ///< --seq-len: tokens per sample (0: the profile's own)
  std::string dtype = "auto";
  std::string algos;
  std::string buckets;
  std::string backend = "nccl";
  std::string framework;        ///< empty: topotune with --backend mpi, else ddp
  double efficiency = 0;        ///< 0: not given (the profile's or its family's fit)
  std::string precision;        ///< empty: the GPU's default
  std::string timing = "auto";  ///< auto (measured times where the profile has them) or flops
  double peak_tflops = 0;
  std::string calibration;
  std::string nccl_version;  ///< empty: the latest modeled release
  OutputFormat format = OutputFormat::Table;
  std::vector<std::string> keep;  ///< --keep, each a name or a comma list of names
  std::string emit;
  std::string out;
  bool force = false;  ///< --force: --emit replaces edited and foreign files
  std::string replay;
};

/// The planner's inputs from the flags; errors name the flag.
Expected<tune::PlanInputs> plan_inputs_from_args(const PlanArgs& args);

}  // namespace topotune::cli
