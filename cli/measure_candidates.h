#pragma once
// The candidates `topotune measure` times: the glue between the runtime (which runs and times
// them) and the schedule generators (which the runtime may not see).

#include <memory>
#include <optional>
#include <string>

#include "algorithms/schedule/collective_spec.h"
#include "calibration/measure_schedules.h"
#include "core/expected.h"
#include "runtime/candidate.h"
#include "runtime/harness.h"
#include "runtime/measure_loop.h"
#include "runtime/mpi_transport.h"
#ifdef TOPOTUNE_HAVE_NCCL_MPI
#include "runtime/nccl/nccl_mpi_bootstrap.h"
#endif

namespace topotune::cli {

/// `mpi` is the MPI library's own collective (MPI_Allreduce, MPI_Reduce_scatter,
/// MPI_Allgatherv); any other name a schedule of `collective` generated for `layout`, run by
/// the host executor over `transport` (which must outlive the candidate).
Expected<rt::Candidate> make_host_candidate(const std::string& algorithm, Bytes size,
                                            sched::DataType dtype, sched::Collective collective,
                                            const tune::MeasureLayout& layout,
                                            rt::MpiTransport& transport);

#ifdef TOPOTUNE_HAVE_NCCL_MPI
/// `nccl` is NCCL's own collective (ncclAllReduce, ncclReduceScatter, ncclAllGather); any
/// other name (but `mpi`) a schedule of `collective` generated for `layout`, run by the device
/// executor (`backend` must outlive the candidate).
Expected<rt::Candidate> make_device_candidate(const std::string& algorithm, Bytes size,
                                              sched::DataType dtype, sched::Collective collective,
                                              const tune::MeasureLayout& layout,
                                              rt::NcclBackend& backend);
#endif

/// Where the measured buffers live and what moves them.
enum class MeasureBackendKind {
  Mpi,   ///< host memory over MPI point-to-point (baseline algorithm `mpi`)
  Nccl,  ///< device memory over NCCL send/recv, one GPU per rank (baseline `nccl`)
};

/// What the measure loop runs on: the backend's harness and its candidates.
struct MeasureBackend {
  std::unique_ptr<rt::Harness> harness;
  rt::CandidateFactory make_candidate;
  std::optional<std::string> nccl_version;  ///< NCCL's release, for the measurement
#ifdef TOPOTUNE_HAVE_NCCL_MPI
  std::shared_ptr<rt::NcclBackend> nccl;  ///< shared with the candidates it makes
#endif
};

/// Starts the backend (NCCL: its communicator over MPI_COMM_WORLD, collective) with `warmup`
/// and `iterations` per point. Errc::Unsupported for NCCL in a build without CUDA/NCCL.
/// `transport` must outlive the backend.
Expected<MeasureBackend> make_measure_backend(MeasureBackendKind kind, int warmup, int iterations,
                                              sched::DataType dtype, sched::Collective collective,
                                              const tune::MeasureLayout& layout,
                                              rt::MpiTransport& transport);

}  // namespace topotune::cli
