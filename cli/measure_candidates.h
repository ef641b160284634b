#pragma once
// The candidates `topotune measure` times: the glue between the runtime (which runs and times
// them) and the schedule generators (which the runtime may not see).

#include <string>

#include "algorithms/schedule/collective_spec.h"
#include "cli/measure_schedules.h"
#include "core/expected.h"
#include "runtime/candidate.h"
#include "runtime/mpi_transport.h"
#ifdef TOPOTUNE_HAVE_NCCL_MPI
#include "runtime/nccl/nccl_mpi_bootstrap.h"
#endif

namespace topotune::cli {

/// `mpi` is MPI_Allreduce; any other name a schedule generated for `layout`, run by the host
/// executor over `transport` (which must outlive the candidate).
Expected<rt::Candidate> make_host_candidate(const std::string& algorithm, Bytes size,
                                            sched::DataType dtype, const MeasureLayout& layout,
                                            rt::MpiTransport& transport);

#ifdef TOPOTUNE_HAVE_NCCL_MPI
/// `nccl` is ncclAllReduce; any other name (but `mpi`) a schedule generated for `layout`, run
/// by the device executor (`backend` must outlive the candidate).
Expected<rt::Candidate> make_device_candidate(const std::string& algorithm, Bytes size,
                                              sched::DataType dtype, const MeasureLayout& layout,
                                              rt::NcclBackend& backend);
#endif

}  // namespace topotune::cli
