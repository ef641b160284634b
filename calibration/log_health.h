#pragma once
// validate as a health check: one verdict per nccl-tests log (within the model's expected
// error, or underperforming from some size up, with the line rate beside it and what to check),
// and warnings where the log contradicts what the user said it ran on (GPU names, host count).
// Pure functions of the compared rows and the cluster; the command prints what they return.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/nccl/nccl_system.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// One compared size: measured and predicted bus bandwidth (GB/s).
struct HealthPoint {
  std::int64_t bytes = 0;
  double measured_busbw = 0;
  double predicted_busbw = 0;
};

/// The model's expected error for a healthy run: the median |busbw error| of sizes >= 1 MiB
/// that healthy logs of data/validation reach on clusters the model was not fitted to
/// (README "Accuracy", leave-one-out column: most entries below this).
inline constexpr double kExpectedError = 0.25;
/// A size is "low" when it reaches less than this share of the predicted busbw, well outside
/// the expected error (a degraded fabric typically leaves 10-50 %).
inline constexpr double kLowShare = 0.6;

/// The verdict on one log.
struct HealthVerdict {
  bool healthy = false;          ///< within the expected error
  bool underperforming = false;  ///< every size from `from_bytes` up is low
  std::int64_t from_bytes = 0;
  double share = 0;  ///< median measured/predicted busbw over the low sizes
  std::string text;  ///< one line for the report, e.g. "busbw at 30 % of predicted from 64 MiB..."
};

/// Judges the rows of sizes >= 1 MiB (smaller ones are latency-bound and noisy).
HealthVerdict judge_health(const std::vector<HealthPoint>& points, const algo::NcclSystem& sys);

/// What a log says about where it ran (nccl-tests' Rank lines): GPU names and the host count.
struct LogOrigin {
  std::vector<std::string> gpu_names;
  std::optional<int> hosts;
};

/// Where the log contradicts the cluster the user named: GPU names of a different GPU family
/// than the instance's, a host count other than the nodes (when `nodes_given`). Empty if none.
std::vector<std::string> log_contradictions(const LogOrigin& log, const topo::ClusterSpec& spec,
                                            bool nodes_given);

}  // namespace topotune::tune
