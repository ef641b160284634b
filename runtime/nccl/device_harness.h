#pragma once
// DeviceHarness: the Harness (runtime/harness.h) of `topotune measure --backend nccl`, timing
// candidates on device memory with measure_on_device (nccl_measure.h), so that the measure
// loop and its watchdog are the host's. And the device twin of schedule_candidate.h.

#include <optional>
#include <string>

#include "algorithms/schedule/schedule.h"
#include "runtime/harness.h"
#include "runtime/nccl/cuda_reducer.h"
#include "runtime/nccl/nccl_allreduce.h"
#include "runtime/nccl/nccl_transport.h"

namespace topotune::rt {

class DeviceHarness final : public Harness {
 public:
  /// `transport` must outlive the harness.
  DeviceHarness(NcclTransport& transport, sched::DataType dtype, NcclAllreduceOptions options)
      : transport_(transport), dtype_(dtype), options_(options) {}

  int rank() const override;
  int world_size() const override;
  /// measure_on_device; every rank computes the row, only rank 0 returns it (as the host
  /// harness does).
  Expected<std::optional<MeasurementRow>> measure(const Candidate& candidate, std::int64_t bytes,
                                                  const ProgressFn& progress = {}) override;
  Expected<void> barrier() override;

 private:
  NcclTransport& transport_;
  sched::DataType dtype_;
  NcclAllreduceOptions options_;
};

/// Plans this rank's part of `schedule` now and returns a candidate named `name` that runs it
/// with the DeviceExecutor (queued in transfer-id order on the transport's stream,
/// docs/gpu.md). `transport` and `reducer` must outlive it.
Expected<Candidate> device_schedule_candidate(std::string name, sched::Schedule schedule,
                                              NcclTransport& transport, CudaReducer& reducer);

}  // namespace topotune::rt
