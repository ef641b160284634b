#pragma once
// The `nccl` rows of `topotune measure --backend nccl`: ncclAllReduce at each size, timed per
// iteration with CUDA events on every rank, combined across ranks on the GPU (an iteration
// lasts as long as its slowest rank: ncclAllReduce with ncclMax over the per-iteration times)
// and summarised as the MPI harness does (median, min, p10, p90, max by nearest rank), with
// nccl-tests' algbw/busbw and the number of wrong elements over all ranks.

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "runtime/measurement.h"
#include "runtime/nccl/nccl_allreduce.h"
#include "runtime/nccl/nccl_transport.h"

namespace topotune::rt {

/// Measures ncclAllReduce (sum, out of place as nccl-tests' default) of each size in `sizes`
/// (bytes, multiples of the element size) on every rank of `transport`. Collective: every rank
/// calls it with the same arguments and gets the same rows (algorithm "nccl").
[[nodiscard]] Expected<std::vector<MeasurementRow>> measure_nccl_allreduce(
    NcclTransport& transport, std::span<const std::int64_t> sizes, sched::DataType dtype,
    const NcclAllreduceOptions& options);

/// Fills the row's time, spread and bandwidth fields from per-iteration times in seconds
/// (already the max over ranks) for `ranks` ranks; `row.bytes` must be set.
void summarise_times(std::vector<double> seconds, int ranks, MeasurementRow& row);

}  // namespace topotune::rt
