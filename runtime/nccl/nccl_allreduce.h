#pragma once
// The `nccl` baseline algorithm of `topotune measure --backend nccl`: NCCL's own
// ncclAllReduce (sum), with whatever algorithm and protocol NCCL picks, timed with CUDA events
// on the transport's stream, and checked once against a host-computed expectation, as
// nccl-tests' all_reduce_perf does.

#include <cstdint>
#include <vector>

#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "core/units.h"
#include "runtime/nccl/nccl_transport.h"

namespace topotune::rt {

/// How many ncclAllReduce calls to run untimed, then timed.
struct NcclAllreduceOptions {
  int warmup = 5;
  int iterations = 20;
  bool verify = true;  ///< run one checked allreduce first (counts wrong elements)
  /// What `measure --backend nccl` runs and checks (measure_on_device): Allreduce,
  /// ReduceScatter or Allgather. run_nccl_allreduce_baseline runs allreduce only.
  sched::Collective collective = sched::Collective::Allreduce;
};

/// Per-iteration times of this rank and the verification result.
struct NcclAllreduceResult {
  std::vector<Seconds> times;  ///< one per timed iteration, CUDA-event elapsed time
  std::int64_t wrong = 0;      ///< elements that differed from the expectation (0 unverified)
  bool verified = false;
};

/// Runs ncclAllReduce of spec.bytes (spec.dtype, sum; in place when spec.in_place, else from a
/// separate send buffer) on every rank of `transport`'s communicator; every rank must call it
/// with the same spec and options. Rank r's input element i is ((r + i) % 3) - 1, whose sums
/// are small integers, exact in fp16 and bf16 up to 256 ranks. Only spec.collective ==
/// Allreduce is supported. Device memory is allocated and freed here.
[[nodiscard]] Expected<NcclAllreduceResult> run_nccl_allreduce_baseline(
    NcclTransport& transport, const sched::CollectiveSpec& spec,
    const NcclAllreduceOptions& options);

/// NCCL's data type for a schedule element type.
ncclDataType_t nccl_dtype(sched::DataType dtype);

}  // namespace topotune::rt
