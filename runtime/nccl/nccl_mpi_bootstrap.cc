#include "runtime/nccl/nccl_mpi_bootstrap.h"

#include <string>

#include "runtime/nccl/cuda_check.h"

namespace topotune::rt {
namespace {

Error mpi_error(int rc, const char* what) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(rc, text, &length);
  return Error(Errc::Transport, std::string(what) + ": " + std::string(text, length));
}

// TT_MPI of the MPI transport, kept private here so that the two libraries cannot clash.
#define TT_GPU_MPI(expr)                                                            \
  do {                                                                              \
    const int tt_mpi_rc_ = (expr);                                                  \
    if (tt_mpi_rc_ != MPI_SUCCESS) return Unexpected(mpi_error(tt_mpi_rc_, #expr)); \
  } while (0)

}  // namespace

Expected<LocalDevice> choose_local_device(MPI_Comm comm) {
  LocalDevice d;
  MPI_Comm local = MPI_COMM_NULL;
  TT_GPU_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local));
  const int rank_rc = MPI_Comm_rank(local, &d.local_rank);
  const int size_rc = MPI_Comm_size(local, &d.local_size);
  MPI_Comm_free(&local);
  TT_GPU_MPI(rank_rc);
  TT_GPU_MPI(size_rc);
  TT_CUDA(cudaGetDeviceCount(&d.devices));
  if (d.local_size > d.devices) {
    return fail(Errc::InvalidArgument,
                std::to_string(d.local_size) + " processes on this host but " +
                    std::to_string(d.devices) +
                    " visible GPU(s): NCCL needs one GPU per rank (check -np / "
                    "--map-by and CUDA_VISIBLE_DEVICES)");
  }
  d.device = d.local_rank;
  return d;
}

Expected<std::unique_ptr<NcclTransport>> nccl_transport_over_mpi(MPI_Comm comm,
                                                                 NcclTransport::Options options) {
  int rank = 0;
  int size = 0;
  TT_GPU_MPI(MPI_Comm_rank(comm, &rank));
  TT_GPU_MPI(MPI_Comm_size(comm, &size));
  // Every rank must reach the broadcast even if its own device check failed, or the others
  // hang in it; the failure is reported after.
  Expected<LocalDevice> device = choose_local_device(comm);
  // The id travels with rank 0's success flag, so that no rank joins with a garbage id.
  struct {
    ncclUniqueId id;
    int ok;
  } shared{};
  ncclResult_t id_rc = ncclSuccess;
  if (rank == 0) {
    id_rc = ncclGetUniqueId(&shared.id);
    shared.ok = id_rc == ncclSuccess ? 1 : 0;
  }
  TT_GPU_MPI(MPI_Bcast(&shared, sizeof(shared), MPI_BYTE, 0, comm));
  if (id_rc != ncclSuccess) return Unexpected(nccl_error(id_rc, "ncclGetUniqueId"));
  if (shared.ok == 0) return fail(Errc::Transport, "rank 0 could not create the NCCL id");
  if (!device) return Unexpected(std::move(device).error().context("choosing the GPU"));
  return NcclTransport::create(shared.id, rank, size, device->device, options)
      .context("creating the NCCL communicator (rank " + std::to_string(rank) + " of " +
               std::to_string(size) + ", GPU " + std::to_string(device->device) + ")");
}

Expected<NcclBackend> make_nccl_backend(MPI_Comm comm, NcclTransport::Options options) {
  NcclBackend b;
  TT_TRY(b.transport, nccl_transport_over_mpi(comm, options));
  b.reducer = std::make_unique<CudaReducer>(b.transport->stream());
  return b;
}

}  // namespace topotune::rt
