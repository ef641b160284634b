#pragma once
// Harness: what the measure loop (measure_loop.h) needs from the thing that times a candidate
// at one size on every rank. MeasureHarness (host memory, any Transport) and DeviceHarness
// (device memory over NCCL, runtime/nccl/device_harness.h) implement it, so the loop, its
// watchdog and its reporting exist once for both.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/expected.h"
#include "measurement/measurement.h"
#include "runtime/candidate.h"

namespace topotune::rt {

/// Where a harness is; passed to the progress callback before every iteration, on every rank.
struct HarnessProgress {
  const std::string* algorithm = nullptr;
  std::int64_t bytes = 0;
  int iteration = 0;  ///< negative during warm-up
  int iterations = 0;
};
using ProgressFn = std::function<void(const HarnessProgress&)>;

/// Times candidates on every rank of one job. Not thread-safe: one per rank.
class Harness {
 public:
  virtual ~Harness() = default;

  virtual int rank() const = 0;
  virtual int world_size() const = 0;

  /// Measures `candidate` at `bytes` (a multiple of the element size). Collective: every rank
  /// calls it with the same arguments. Rank 0 gets the row; the other ranks get nullopt.
  /// `progress` is called before every iteration (warm-up included).
  [[nodiscard]] virtual Expected<std::optional<MeasurementRow>> measure(
      const Candidate& candidate, std::int64_t bytes, const ProgressFn& progress = {}) = 0;

  /// Waits for every rank (the loop's final barrier before results are written).
  [[nodiscard]] virtual Expected<void> barrier() = 0;
};

}  // namespace topotune::rt
