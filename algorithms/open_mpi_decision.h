#pragma once
// What Open MPI's coll/tuned component runs for MPI_Reduce_scatter and MPI_Allgatherv (its
// fixed decision rules: ompi/mca/coll/tuned/coll_tuned_decision_fixed.c at v4.1.4, Debian 12's
// Open MPI), by communicator size and bytes. `measure --backend mpi` runs those two for the
// `mpi` rows of reduce_scatter and allgather, so these decide which schedule models the rows
// (timing/schedule_predictor.h). Copied, never fitted.

#include <cstdint>

namespace topotune::algo {

/// ompi_coll_tuned_reduce_scatter_intra_dec_fixed's algorithms (coll_tuned_reduce_scatter.c).
enum class OmpiReduceScatter { NonOverlapping = 1, RecursiveHalving = 2, Ring = 3, Butterfly = 4 };
/// ompi_coll_tuned_allgatherv_intra_dec_fixed's algorithms (coll_tuned_allgatherv.c).
enum class OmpiAllgatherv { Default = 1, Bruck = 2, Ring = 3, Neighbor = 4, TwoProc = 5 };

/// For a commutative operation (a sum) of `total_bytes` (the sum of every rank's block) on
/// `ranks` ranks.
OmpiReduceScatter open_mpi_reduce_scatter(int ranks, std::int64_t total_bytes);
/// For `total_bytes` gathered in all on `ranks` ranks (the rule reads total_bytes / ranks).
OmpiAllgatherv open_mpi_allgatherv(int ranks, std::int64_t total_bytes);

const char* open_mpi_name(OmpiReduceScatter a);  ///< "ring", "butterfly", ...
const char* open_mpi_name(OmpiAllgatherv a);     ///< "neighbor exchange", "bruck", ...

}  // namespace topotune::algo
