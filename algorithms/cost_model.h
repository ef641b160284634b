#pragma once
// The closed-form α–β–γ cost model, used to screen thousands of candidates quickly, and the
// critical-path evaluator that checks it.
//
// A closed form predicts the time of an algorithm's schedule on an uncongested topology,
// including the sharing the algorithm itself causes: C channels of a ring on the same links
// share them (per step a link carries C chunks), a parameter server's ingress is shared by all
// pushes of its shard, and so on. Reductions cost bytes·γ on the receiving device after
// arrival; concurrent reductions on one device share it (they finish after Σ bytes·γ).
// Bytes are treated as real numbers (S/n, not ⌊S/n⌋): the forms are exact when the chunking
// divides the element count evenly and within one element per step otherwise.
//
// critical_path_time() evaluates a schedule's DAG with a per-transfer cost and no contention;
// tests check every closed form against the critical path of its own schedule, with per-transfer
// costs that apply the same sharing factors (the derivations are in the tests).

#include <functional>
#include <vector>

#include "algorithms/cost_params.h"
#include "algorithms/rank_layout.h"
#include "algorithms/schedule/schedule.h"
#include "core/units.h"

namespace topotune::algo {

/// The cost of one transfer, given its id and data.
using TransferCost = std::function<Seconds(TransferId, const sched::Transfer&)>;

/// Longest path through the DAG: finish(t) = max over deps of finish(dep) + cost(t).
Seconds critical_path_time(const sched::Schedule& s, const TransferCost& cost);

/// The path level of a transfer (intra/inter host, to a CPU) under `layout`.
const HopCost& hop_of(const sched::Schedule& s, const RankLayout& layout, const CostParams& p,
                      const sched::Transfer& t);

/// Level-based transfer cost: hop.latency + share_beta·bytes/bandwidth, plus for a reduce
/// share_gamma·bytes·γ of the receiver (GPU or CPU). share_* model the algorithm's own sharing.
TransferCost level_transfer_cost(const sched::Schedule& s, const RankLayout& layout,
                                 const CostParams& p, double share_beta = 1.0,
                                 double share_gamma = 1.0);

/// The slowest of `hops` for a message of `bytes`.
HopCost slowest_hop(const std::vector<HopCost>& hops, double bytes);
/// Hop costs of consecutive positions of a ring order (n hops, the last one closing the ring).
std::vector<HopCost> ring_hops(const std::vector<RankId>& ring, const RankLayout& layout,
                               const CostParams& p);

/// Ring halves over n positions moving S bytes in K chunks (any C: the channels share a link):
/// rs_steps·(n-1)K·(hop(x) + x·γ) + ag·(n-1)K·hop(x), x = S/(nK).
Seconds ring_time(int n, double bytes, int chunks, const HopCost& hop, double gamma, bool rs,
                  bool ag);
/// Pipelined chain of n-1 equal hops: (n-1 + K-1)·hop(S/K).
Seconds chain_time(int n, double bytes, int chunks, const HopCost& hop);
/// Pipelined chain over `hops` (hop i: position i -> i+1), K chunks of S/K, FIFO per link, no
/// contention: Σ_i h_i(S/K) + (K-1)·max_i h_i(S/K). Chunk k leaves hop i when it has crossed
/// hop i-1 and chunk k-1 has left hop i, so the last chunk's finish is the longest path through
/// the (hop, chunk) grid: every path crosses each hop once and spends K-1 extra chunk-steps,
/// best spent on the slowest hop.
Seconds chain_time(const std::vector<HopCost>& hops, double bytes, int chunks);
/// Parameter server, shard of `shard` bytes: pushes from `remote` GPUs over `net` and `local`
/// GPUs over `near` into one server, reduced there at γ in arrival order, then pulls back.
Seconds ps_time(int remote, int local, double shard, const HopCost& net, const HopCost& near,
                double gamma);

}  // namespace topotune::algo
