#include "runtime/nccl/device_harness.h"

#include <memory>

#include "runtime/nccl/device_executor.h"
#include "runtime/nccl/nccl_measure.h"

namespace topotune::rt {
namespace {

/// What a device schedule candidate's closure keeps alive between runs.
struct DeviceScheduleRun {
  explicit DeviceScheduleRun(sched::Schedule s) : schedule(std::move(s)) {}
  sched::Schedule schedule;
  DeviceExecutor executor;
};

}  // namespace

int DeviceHarness::rank() const { return transport_.rank().value; }

int DeviceHarness::world_size() const { return transport_.world_size(); }

Expected<std::optional<MeasurementRow>> DeviceHarness::measure(const Candidate& candidate,
                                                               std::int64_t bytes,
                                                               const ProgressFn& progress) {
  auto on_iteration = [&](int k) {
    if (progress) progress(HarnessProgress{&candidate.name, bytes, k, options_.iterations});
  };
  TT_TRY(MeasurementRow row,
         measure_on_device(transport_, candidate, bytes, dtype_, options_, on_iteration));
  if (rank() != 0) return std::optional<MeasurementRow>();
  return std::optional<MeasurementRow>(std::move(row));
}

Expected<void> DeviceHarness::barrier() { return transport_.barrier(); }

Expected<Candidate> device_schedule_candidate(std::string name, sched::Schedule schedule,
                                              NcclTransport& transport, CudaReducer& reducer) {
  auto st = std::make_shared<DeviceScheduleRun>(std::move(schedule));
  TT_TRY_VOID(st->executor.prepare(st->schedule, transport.rank()));
  return Candidate{std::move(name), [st, &transport, &reducer](BufferView b) {
                     return st->executor.run(st->schedule, transport.rank(), b, transport, reducer);
                   }};
}

}  // namespace topotune::rt
