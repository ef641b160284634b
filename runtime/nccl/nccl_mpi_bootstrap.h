#pragma once
// NCCL communicators bootstrapped over MPI, as `mpirun ... topotune measure --backend nccl`
// creates them: rank 0 of the MPI communicator makes the NCCL unique id (ncclGetUniqueId) and
// MPI_Bcast shares it; each process takes the GPU of its local rank (its rank among the
// processes of its host, from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)); NCCL rank = MPI rank.
// Built only when MPI is found (TOPOTUNE_HAVE_MPI).

#include <mpi.h>

#include <memory>

#include "core/expected.h"
#include "runtime/nccl/cuda_reducer.h"
#include "runtime/nccl/nccl_transport.h"

namespace topotune::rt {

/// Which GPU this process uses and why: local rank among local size, of `devices` visible.
struct LocalDevice {
  int local_rank = 0;
  int local_size = 1;
  int devices = 0;  ///< cudaGetDeviceCount (after CUDA_VISIBLE_DEVICES)
  int device = 0;   ///< = local_rank
};

/// Local rank of this process on its host, and its device. Errc::InvalidArgument when the host
/// runs more processes than it has visible GPUs (NCCL refuses two ranks on one GPU).
[[nodiscard]] Expected<LocalDevice> choose_local_device(MPI_Comm comm);

/// Collective over `comm`: every process calls it; returns this process's transport.
[[nodiscard]] Expected<std::unique_ptr<NcclTransport>> nccl_transport_over_mpi(
    MPI_Comm comm, NcclTransport::Options options = {});

/// What the executor needs to run schedules on GPUs: the transport and a reducer launching
/// its kernels on the transport's stream. The reducer refers to the transport's stream: keep
/// both alive together (the struct does).
struct NcclBackend {
  std::unique_ptr<NcclTransport> transport;
  std::unique_ptr<CudaReducer> reducer;
};

/// nccl_transport_over_mpi plus its CudaReducer. Collective over `comm`.
[[nodiscard]] Expected<NcclBackend> make_nccl_backend(MPI_Comm comm,
                                                      NcclTransport::Options options = {});

}  // namespace topotune::rt
