#pragma once
// Recursive halving-doubling allreduce (Rabenseifner; Thakur, Rabenseifner & Gropp 2005):
// reduce-scatter by recursive halving, then allgather by recursive doubling.
//
// Structure, n ranks in ring order, p = the largest power of two <= n, r = n - p: the first 2r
// positions fold in pairs (position 2i reduces its whole buffer into 2i+1: the pre-step); the
// p survivors (the odd positions among the first 2r, then positions 2r..n-1) are virtual ranks
// 0..p-1 over p blocks of the buffer. Halving: at mask p/2, p/4, .., 1, virtual rank v and its
// partner v^mask exchange halves of their current range (v keeps the lower half if v & mask
// is 0), the receiver reducing. Doubling: masks 1, 2, .., p/2, each copies its range to the
// partner. Post-step: position 2i+1 copies the whole result back to 2i.
// Steps (DAG depth): 2·log2 p, plus 2 when n is not a power of two.
// Transfers: 2·p·log2 p + 2r.
// Bytes sent per rank: virtual rank v sends 2(S - |block v|) (= 2(p-1)/p·S when p divides the
//   element count); a folded even position sends S (pre-step); its odd partner also S more.
// Closed form: T = 2 log2 p·α + 2(p-1)/p·S·β + (p-1)/p·S·γ, plus, when r > 0,
//   2(α + S·β) + S·γ for the pre- and post-steps.

#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/phase_context.h"

namespace topotune::algo {

/// The closed form above over ranks `order`, each exchange at the slowest level of its pairs.
Seconds rhd_closed_form(const std::vector<RankId>& order, double bytes, const RankLayout& layout,
                        const CostParams& params);

class HalvingDoubling final : public Algorithm {
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

/// One virtual rank of a halving-doubling (the building block the rhd generators share).
struct RhdVrank {
  EndpointId at;              ///< the rank that runs it
  int lo = 0, hi = 0;         ///< virtual blocks currently owned [lo, hi)
  TransferId sent, received;  ///< last send, last receive
  DepList ag_received;        ///< every doubling receive (they write disjoint ranges)
};

/// One halving (each sends the half its partner keeps, reduced into the partner) or doubling
/// (each copies its range to its partner) exchange at `mask` among the p = v.size() virtual
/// ranks; virtual block k is bytes [edges[k], edges[k + 1]) (p + 1 edges).
void add_rhd_exchange(const PhaseContext& ctx, std::vector<RhdVrank>& v,
                      const std::vector<Bytes>& edges, int mask, bool halving, int channel);

/// A bound on the transfers of any halving-doubling schedule on n ranks (the allreduce's
/// 2·p·log2 p + 2r, a half's fewer): 2·n·(log2 n + 1), for ScheduleBuilder reservations.
std::int64_t rhd_transfer_bound(std::int64_t n);

/// Halving-doubling allreduce of `region` over `order` (positions), on channel `channel`.
void add_rhd_allreduce(const PhaseContext& ctx, const std::vector<EndpointId>& order,
                       sched::Slice region, int channel);

}  // namespace topotune::algo
