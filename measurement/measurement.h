#pragma once
// Measurement: what `topotune measure` writes and what ingested nccl-tests logs become. One
// schema for both (docs/measurement.md), so that `validate` and `calibrate` read either.
// Times are per iteration; bandwidths follow nccl-tests (GB/s = 1e9 bytes/s): algbw = S / t,
// busbw = algbw x 2(n-1)/n for allreduce, x (n-1)/n for allgather / reduce-scatter.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"

namespace topotune::rt {

/// One (algorithm, size) point.
/// Bounds on what a measurement file or an nccl-tests log may claim (docs/limits.md): the
/// schedule limits of topotune (2^20 ranks, 1024 channels, 65536 chunks, 1 TiB buffers),
/// times finite and at most 10^12 us, at most 2^20 rows.
inline constexpr int kMaxMeasuredRanks = 1 << 20;
inline constexpr int kMaxMeasuredChannels = 1024;
inline constexpr int kMaxMeasuredChunks = 65536;
inline constexpr std::size_t kMaxMeasuredRows = std::size_t{1} << 20;
inline constexpr std::int64_t kMaxMeasuredBytes = std::int64_t{1} << 40;
inline constexpr double kMaxMeasuredTimeUs = 1e12;
/// The largest CPU time a measurement may state (about 30 CPU-years).
inline constexpr double kMaxMeasuredCpuSeconds = 1e9;
/// The resolution of a measured time (1 ns): a positive time below it is no measurement, and
/// a denormal one (5e-324 us) makes bandwidths inf. A row that moved bytes needs at least it.
inline constexpr double kMinMeasuredTimeUs = 1e-3;

struct MeasurementRow;
struct Measurement;
/// Fails unless the header's counts are within what topotune can schedule: ranks, nodes, GPUs
/// per node and per thread in [1, 2^20], channels in [1, 1024], chunks in [1, 65536]; and
/// ranks_cpu_s, when given, in [0, kMaxMeasuredCpuSeconds]. Every
/// reader applies it (the JSON reader and the nccl-tests parser), so what one reads the other
/// reads back.
Expected<void> check_measurement_header(const Measurement& m);
/// Fails unless the row's bytes are at most 1 TiB, its times 0 or in [1e-3, 1e12] us (its
/// time at least 1e-3 us when it moved bytes) and its bandwidths finite and non-negative.
Expected<void> check_measurement_row(const MeasurementRow& r);

struct MeasurementRow {
  std::string algorithm;   ///< "ring", "mpi", "nccl" (nccl-tests: what NCCL chose)
  std::int64_t bytes = 0;  ///< S, the whole logical buffer, as nccl-tests' "size"
  std::int64_t count = 0;  ///< elements
  sched::DataType dtype = sched::DataType::F32;
  double time_us = 0;  ///< median (measure) or out-of-place time (nccl-tests)
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  std::optional<double> in_place_time_us;  ///< nccl-tests in-place column, when present
  std::optional<double> time_us_min;       ///< spread across iterations and ranks (measure)
  std::optional<double> time_us_max;
  std::optional<double> time_us_p10;
  std::optional<double> time_us_p90;
  std::optional<int> iterations;
  std::optional<std::int64_t> errors;  ///< nccl-tests "#wrong"; measure: failed checks
};

struct Measurement {
  std::string source;   ///< "topotune-measure" or "nccl-tests"
  std::string backend;  ///< "mpi", "nccl", "loopback", or "" for logs
  sched::Collective collective = sched::Collective::Allreduce;
  int ranks = 0;
  std::optional<int> nodes;
  std::optional<int> gpus_per_node;
  std::optional<std::string> instance;
  std::optional<std::string> nccl_version;
  std::optional<std::string> cluster;  ///< path or description of the cluster measured
  /// GPUs one thread drives in turn (nccl-tests -g); launch overhead grows with it.
  std::optional<int> gpus_per_thread;
  /// Algorithm options `topotune measure` generated its schedules with (--channels, --chunks);
  /// absent means 1. validate regenerates the same schedules from them.
  std::optional<int> channels;
  std::optional<int> chunks;
  /// `topotune measure`: CPU seconds (user + system) every rank's process used, summed, from
  /// its start to the end of the runs (getrusage). A check compares it with what the machine's
  /// CPUs did meanwhile, so that time other work took is reported as contention.
  std::optional<double> ranks_cpu_s;
  /// GPU names of an nccl-tests log's Rank lines ("NVIDIA H100 80GB HBM3"), distinct, in
  /// first-seen order; empty when the log has none. Not part of the JSON schema.
  std::vector<std::string> gpu_names;
  std::vector<MeasurementRow> rows;
};

/// Serialises to the documented JSON (schema "topotune.measurement/1"), pretty-printed.
std::string to_json(const Measurement& m);
/// Parses and checks the documented JSON; errors name the field (and line/column if malformed).
Expected<Measurement> measurement_from_json(const std::string& text, const std::string& origin);

}  // namespace topotune::rt
