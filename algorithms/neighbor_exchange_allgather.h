#pragma once
// NeighborExchangeAllgather: Open MPI's neighbor-exchange allgather (Chen et al. 2005;
// ompi/mca/coll/base/coll_base_allgatherv.c, ompi_coll_base_allgatherv_intra_neighborexchange
// at v4.1.4), which coll/tuned runs for MPI_Allgatherv on 4-7 ranks at 256 KiB and more per
// rank (open_mpi_decision.h). It is the model of those `measure` rows, not one of topotune's
// own algorithms (no family, not planned).
//
// n even (odd n: Open MPI runs its ring instead, and so does generate()). Rank r's neighbors:
// r+1 then r-1 for even r, r-1 then r+1 for odd r (mod n). Step 0: r sends its block to its
// first neighbor. Step i = 1 .. n/2-1: r sends two adjacent blocks (the pair it received at the
// previous step, or for even r at step 1 its own and the one received) to neighbor[i % 2] and
// receives two: so every rank holds every block after n/2 steps. Each exchange is a sendrecv:
// a rank's step waits for both transfers of its previous step.
// Steps (DAG depth): n/2. Bytes sent per rank: (n-1)/n·S (one block, then two per step).
// Closed form: hop(S/n) at the slowest level of step 0's pairs, then per step the slowest level
// of that step's pairs at 2S/n.

#include "algorithms/algorithm.h"

namespace topotune::algo {

class NeighborExchangeAllgather final : public Algorithm {
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
