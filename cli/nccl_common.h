#pragma once
// Shared plumbing of the NCCL-model subcommands (predict, validate, calibrate): resolving an
// instance (catalog name or --cluster file) into an NcclSystem, NCCL option lists, and
// loading measurements (the calibration file itself is calibration/calibration_file.h's).

#include <optional>
#include <string>
#include <vector>

#include "algorithms/nccl/nccl_params.h"
#include "algorithms/nccl/nccl_predictor.h"
#include "algorithms/nccl/nccl_system.h"
#include "calibration/calibration_file.h"
#include "cli/cluster_flags.h"
#include "core/expected.h"
#include "measurement/measurement.h"
#include "topology/cluster_spec.h"

namespace topotune::cli {

/// The system for `instance` x `nodes`, or for a cluster file when `cluster_file` is set.
Expected<algo::NcclSystem> resolve_nccl_system(const std::string& instance, int nodes,
                                               const std::string& cluster_file);

/// Parses NCCL_ALGO-style and NCCL_PROTO-style comma lists ("ring,tree", "^LL128", "" = all).
Expected<algo::NcclOptions> make_nccl_options(const std::string& version, const std::string& algos,
                                              const std::string& protos);

/// Number of nodes a measurement ran on: explicit, else the log's host count, else ranks/gpus.
Expected<int> nodes_of(const rt::Measurement& m, std::optional<int> nodes, int gpus_per_node);

/// The help text of every command's --collective (predict, validate, calibrate): one grammar,
/// sched::parse_collective's.
inline constexpr const char* kCollectiveFlagHelp =
    "allreduce | allgather | reduce_scatter | broadcast";

/// A --collective value: "" (not given: the log's own, detected) or a collective's name.
Expected<std::optional<sched::Collective>> parse_collective_flag(const std::string& text);

/// Loads a measurement from an nccl-tests log or a measurement JSON file (exactly one set).
/// `collective` overrides what the log's header or table says; a measurement JSON states its
/// collective, so a different one is an error there.
Expected<rt::Measurement> load_measurement(
    const std::string& nccl_tests_log, const std::string& measured_json,
    std::optional<sched::Collective> collective = std::nullopt);

}  // namespace topotune::cli
