#pragma once
// The measurement harness of `topotune measure --backend nccl`: times one implementation of a
// collective (allreduce, reduce-scatter or allgather: NCCL's own, or a schedule run by the
// DeviceExecutor) at one size on device memory, the way the host harness
// (runtime/measure_harness.h) does on host memory, and checks what the collective promises
// (options.collective): allreduce every element, reduce-scatter the rank's block, allgather
// every element (each rank starts with its own block only).
//
// Per point, on every rank: warm-up and timed iterations alike fill the device buffer with the
// rank's input (untimed), pass an NCCL barrier, then run the collective in place between two
// CUDA events on the transport's stream. After each timed iteration the result is copied back
// and compared with the exact expected sum. An iteration lasts as long as its slowest rank:
// the per-iteration times are combined with ncclAllReduce(ncclMax) on the GPU, and the wrong
// element counts with ncclSum, so every rank gets the same row. Summary as the host harness:
// median, min, p10, p90, max by nearest rank; nccl-tests algbw and busbw.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "measurement/measurement.h"
#include "runtime/candidate.h"
#include "runtime/nccl/nccl_allreduce.h"
#include "runtime/nccl/nccl_transport.h"

namespace topotune::rt {

/// Called before each iteration with its index (negative during warm-up): progress lines and
/// the CLI's watchdog.
using DeviceProgressFn = std::function<void(int iteration)>;

/// Measures `candidate` (running on this rank's device buffer) at `bytes` (a multiple of the
/// element size). Collective over the
/// transport's ranks: every rank calls it with the same arguments and gets the same row.
[[nodiscard]] Expected<MeasurementRow> measure_on_device(NcclTransport& transport,
                                                         const Candidate& candidate,
                                                         std::int64_t bytes, sched::DataType dtype,
                                                         const NcclAllreduceOptions& options,
                                                         const DeviceProgressFn& progress = {});

/// The `nccl` candidate: ncclAllReduce (sum) in place on the transport's communicator.
Candidate nccl_allreduce_candidate(NcclTransport& transport, sched::DataType dtype);

/// The `nccl` candidate of `collective`: ncclAllReduce, or ncclReduceScatter / ncclAllGather
/// in place (the rank's block of the whole buffer is the reduce-scatter's output and the
/// all-gather's input); those need the element count to be a multiple of the ranks (NCCL's
/// blocks are equal), and fail otherwise.
Candidate nccl_collective_candidate(NcclTransport& transport, sched::DataType dtype,
                                    sched::Collective collective);

/// measure_on_device of nccl_allreduce_candidate for each size: the `nccl` rows.
[[nodiscard]] Expected<std::vector<MeasurementRow>> measure_nccl_allreduce(
    NcclTransport& transport, std::span<const std::int64_t> sizes, sched::DataType dtype,
    const NcclAllreduceOptions& options);

/// Fills the row's time, spread and bandwidth fields from per-iteration times in seconds
/// (already the max over ranks) for `ranks` ranks of `collective`; `row.bytes` must be set.
void summarise_times(std::vector<double> seconds, int ranks, MeasurementRow& row,
                     sched::Collective collective = sched::Collective::Allreduce);

}  // namespace topotune::rt
