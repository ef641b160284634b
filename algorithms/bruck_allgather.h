#pragma once
// BruckAllgather: Open MPI's Bruck allgather (Bruck et al. 1997;
// ompi/mca/coll/base/coll_base_allgatherv.c, ompi_coll_base_allgatherv_intra_bruck at v4.1.4),
// which coll/tuned runs for MPI_Allgatherv at many sizes (8-15 ranks from 1 KiB per rank up,
// 3-7 ranks at 16-256 KiB per rank, 16-31 ranks up to 256 KiB, more ranks at small sizes:
// open_mpi_decision.cc). It is the model of those `measure` rows, not one of topotune's own
// algorithms (no family, not planned).
//
// Any n. Step k (distance d = 2^k < n): rank r sends the blocks r, r+1, ..., r+c-1 (mod n)
// to r-d and receives r+d, ..., r+d+c-1 from r+d, where c = d while d <= n/2 and n-d at the
// last step of a non-power-of-two n: every rank then holds every block. Blocks that wrap
// past n-1 go as two transfers (Open MPI's indexed datatype: one message). Each exchange is a
// sendrecv: a rank's step waits for both transfers of its previous step.
// Steps (DAG depth): ceil(log2 n). Bytes sent per rank: (n-1)/n·S.
// Closed form: per step, the slowest level of that step's pairs (r to r-d) at c·S/n.

#include "algorithms/algorithm.h"

namespace topotune::algo {

class BruckAllgather final : public Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string name() const override;
  Expected<void> supports(const sched::CollectiveSpec& spec,
                          const RankLayout& layout) const override;
  Expected<sched::Schedule> generate(const sched::CollectiveSpec& spec,
                                     const RankLayout& layout) const override;
  Expected<Seconds> closed_form(const sched::CollectiveSpec& spec, const RankLayout& layout,
                                const CostParams& params) const override;
};

}  // namespace topotune::algo
