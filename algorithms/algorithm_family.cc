// The family table: one row per allreduce algorithm (algorithm_family.h), and the small
// adapters a row points to (its factory, its transfer estimate, its part inside hierarchical).

#include "algorithms/algorithm_family.h"

#include <algorithm>
#include <span>

#include "algorithms/cost_model.h"
#include "algorithms/double_binary_tree.h"
#include "algorithms/halving_doubling.h"
#include "algorithms/halving_doubling_half.h"
#include "algorithms/hierarchical.h"
#include "algorithms/hierarchical_half.h"
#include "algorithms/parameter_server.h"
#include "algorithms/phase_context.h"
#include "algorithms/ring_allreduce.h"
#include "algorithms/ring_broadcast.h"
#include "algorithms/ring_half.h"

namespace topotune::algo {
namespace {

std::int64_t ceil_log2(std::int64_t n) {
  std::int64_t k = 0;
  while ((std::int64_t{1} << k) < n) ++k;
  return k;
}

// Transfer estimates (the headers' formulas, one channel). NCCL's own algorithms count as
// topotune's ring and tree.
std::int64_t ring_transfers(std::int64_t h, std::int64_t g, std::int64_t, AlgoKind) {
  const std::int64_t n = h * g;
  return 2 * (n - 1) * n;
}
std::int64_t tree_transfers(std::int64_t h, std::int64_t g, std::int64_t, AlgoKind) {
  return 4 * h * g;
}
std::int64_t rhd_transfers(std::int64_t h, std::int64_t g, std::int64_t, AlgoKind) {
  const std::int64_t n = h * g;
  return 2 * n * ceil_log2(n) + 2 * n;
}
std::int64_t ps_transfers(std::int64_t h, std::int64_t g, std::int64_t servers, AlgoKind) {
  return 2 * h * g * std::max<std::int64_t>(1, servers);
}
std::int64_t hierarchical_transfers(std::int64_t h, std::int64_t g, std::int64_t servers,
                                    AlgoKind inner) {
  // Intra-host reduce-scatter and allgather rings, then the inner algorithm on each rail.
  return 2 * (g - 1) * h * g + g * family_of(inner).transfers(h, 1, servers, AlgoKind::Ring);
}

// Factories.
std::unique_ptr<Algorithm> make_ring(const AlgorithmOptions& o, sched::Collective c) {
  switch (c) {
    case sched::Collective::ReduceScatter:
      return std::make_unique<RingHalf>(o, RingHalf::Kind::ReduceScatter);
    case sched::Collective::Allgather:
      return std::make_unique<RingHalf>(o, RingHalf::Kind::Allgather);
    case sched::Collective::Broadcast:
      return std::make_unique<RingBroadcast>(o);
    case sched::Collective::Allreduce:
      break;
  }
  return std::make_unique<RingAllreduce>(o);
}
template <typename A>
std::unique_ptr<Algorithm> make_allreduce(const AlgorithmOptions& o, sched::Collective) {
  return std::make_unique<A>(o);
}

// rhd: the allreduce, or recursive halving (reduce-scatter) / doubling (allgather).
std::unique_ptr<Algorithm> make_rhd(const AlgorithmOptions& o, sched::Collective c) {
  if (c == sched::Collective::ReduceScatter) {
    return std::make_unique<HalvingDoublingHalf>(o, HalvingDoublingHalf::Kind::ReduceScatter);
  }
  if (c == sched::Collective::Allgather) {
    return std::make_unique<HalvingDoublingHalf>(o, HalvingDoublingHalf::Kind::Allgather);
  }
  return std::make_unique<HalvingDoubling>(o);
}

// hierarchical(X): the allreduce, or with an inner ring the two-level reduce-scatter and
// allgather (supports() refuses another inner for them, and the other collectives).
std::unique_ptr<Algorithm> make_hierarchical(const AlgorithmOptions& o, sched::Collective c) {
  if (c == sched::Collective::ReduceScatter) {
    return std::make_unique<HierarchicalHalf>(o, HierarchicalHalf::Kind::ReduceScatter);
  }
  if (c == sched::Collective::Allgather) {
    return std::make_unique<HierarchicalHalf>(o, HierarchicalHalf::Kind::Allgather);
  }
  return std::make_unique<Hierarchical>(o);
}

// Inner roles: each family's allreduce across one rail of hierarchical(X), and its time.
void ring_rail(const PhaseContext& ctx, InnerRail& r) {
  add_ring_allreduce(ctx, r.orders, r.shard, r.options.channels, r.options.chunks, r.period);
}
double ring_rail_time(const InnerCostRail& r) {
  return ring_time(r.layout.hosts, r.shard, r.options.chunks, r.rails.inter, r.params.gamma_gpu(),
                   true, true)
      .value;
}
void tree_rail(const PhaseContext& ctx, InnerRail& r) {
  add_tree_allreduce(ctx, r.orders[0], r.shard, r.options.channels, r.options.chunks);
}
double tree_rail_time(const InnerCostRail& r) {
  return tree_closed_form(r.ranks, r.shard, r.options.chunks, r.layout, r.rails).value;
}
void rhd_rail(const PhaseContext& ctx, InnerRail& r) {
  add_rhd_allreduce(ctx, r.orders[0], r.shard, 0);
}
double rhd_rail_time(const InnerCostRail& r) {
  return rhd_closed_form(r.ranks, r.shard, r.layout, r.params).value;  // shares the NIC itself
}
void ps_rail(const PhaseContext& ctx, InnerRail& r) {
  const RankLayout& layout = r.layout;
  const int k = r.options.shards > 0 ? r.options.shards : layout.hosts;
  std::vector<EndpointId> servers;
  for (int j = 0; j < k; ++j) {
    const std::size_t h = static_cast<std::size_t>(j % layout.hosts);
    if (r.options.ps_placement == PsPlacement::Cpu) {
      if (!r.cpus[h].valid()) {
        r.cpus[h] =
            ctx.builder.add_host_cpu(static_cast<int>(h), layout.rank_of(static_cast<int>(h), 0));
      }
      servers.push_back(r.cpus[h]);
    } else {
      servers.push_back(r.orders[0][h]);
    }
  }
  add_ps_allreduce(ctx, r.orders[0], r.shard, servers, 0);
}
double ps_rail_time(const InnerCostRail& r) {
  const int H = r.layout.hosts, G = r.layout.gpus_per_host;
  const int k = r.options.shards > 0 ? r.options.shards : H;
  if (r.options.ps_placement == PsPlacement::Cpu) {
    return ps_cpu_closed_form(H, G, k, r.shard, r.params).value;
  }
  return ps_time(H - 1, 0, r.shard / k, r.rails.inter, r.params.intra, r.params.gamma_gpu()).value;
}

constexpr InnerRole kRingRail{ring_rail, ring_rail_time};
constexpr InnerRole kTreeRail{tree_rail, tree_rail_time};
constexpr InnerRole kRhdRail{rhd_rail, rhd_rail_time};
constexpr InnerRole kPsRail{ps_rail, ps_rail_time};

using A = FamilyArgument;
using S = PlannerSearch;

std::deque<AlgorithmFamily> built_in() {
  // Fields: kind, name, aliases, summary, nccl, argument, make, transfers, inner, search,
  // shift_invariant.
  return {
      {AlgoKind::NcclDefault,
       "nccl:default",
       {"nccl-default", "nccl"},
       "NCCL's own algorithm choice",
       true,
       A::None,
       nullptr,
       ring_transfers,
       nullptr,
       S::Always,
       false},
      {AlgoKind::NcclRing,
       "nccl:ring",
       {},
       "NCCL's ring (NCCL_ALGO=Ring)",
       true,
       A::None,
       nullptr,
       ring_transfers,
       nullptr,
       S::Always,
       false},
      {AlgoKind::NcclTree,
       "nccl:tree",
       {},
       "NCCL's double binary tree (NCCL_ALGO=Tree)",
       true,
       A::None,
       nullptr,
       tree_transfers,
       nullptr,
       S::Always,
       false},
      // On the nccl backend NCCL's ring and tree run over every rail, topotune's over one: those
      // two are searched there only when --algos names them.
      {AlgoKind::Ring,
       "ring",
       {},
       "topotune's flat ring",
       false,
       A::None,
       make_ring,
       ring_transfers,
       &kRingRail,
       S::WithoutNccl,
       true},
      {AlgoKind::DbTree,
       "dbtree",
       {"tree"},
       "topotune's double binary tree",
       false,
       A::None,
       make_allreduce<DoubleBinaryTree>,
       tree_transfers,
       &kTreeRail,
       S::WithoutNccl,
       false},
      {AlgoKind::HalvingDoubling,
       "rhd",
       {},
       "recursive halving-doubling",
       false,
       A::None,
       make_rhd,
       rhd_transfers,
       &kRhdRail,
       S::Always,
       false},
      {AlgoKind::ParameterServer,
       "ps",
       {},
       "parameter server, ps(k=N): N CPU servers",
       false,
       A::Servers,
       make_allreduce<ParameterServer>,
       ps_transfers,
       &kPsRail,
       S::Always,
       false},
      {AlgoKind::Hierarchical,
       "hierarchical",
       {},
       "hierarchical(X): intra-host reduce-scatter, X across hosts, intra-host allgather",
       false,
       A::Inner,
       make_hierarchical,
       hierarchical_transfers,
       nullptr,
       S::Always,
       true},
  };
}

std::deque<AlgorithmFamily>& table() {
  static std::deque<AlgorithmFamily> t = built_in();
  return t;
}

bool has_name(const AlgorithmFamily& f, std::string_view name) {
  return f.name == name || std::find(f.aliases.begin(), f.aliases.end(), name) != f.aliases.end();
}

}  // namespace

const std::deque<AlgorithmFamily>& algorithm_families() { return table(); }

const AlgorithmFamily& family_of(AlgoKind kind) {
  for (const AlgorithmFamily& f : table()) {
    if (f.kind == kind) return f;
  }
  TT_ASSERT(false, "AlgoKind %d has no family", static_cast<int>(kind));
  return table().front();
}

const AlgorithmFamily* find_family(std::string_view name) {
  for (const AlgorithmFamily& f : table()) {
    if (has_name(f, name)) return &f;
  }
  return nullptr;
}

AlgoKind register_algorithm_family(AlgorithmFamily row) {
  TT_ASSERT(find_family(row.name) == nullptr, "family %s is already registered", row.name.c_str());
  for (const std::string& a : row.aliases) {
    TT_ASSERT(find_family(a) == nullptr, "alias %s is already taken", a.c_str());
  }
  TT_ASSERT(row.transfers != nullptr, "family %s has no transfer estimate", row.name.c_str());
  int next = kFirstRegisteredKind;
  for (const AlgorithmFamily& f : table()) next = std::max(next, static_cast<int>(f.kind) + 1);
  row.kind = static_cast<AlgoKind>(next);
  table().push_back(std::move(row));
  return table().back().kind;
}

const char* inner_algorithm_name(AlgoKind a) { return family_of(a).name.c_str(); }

Expected<AlgoKind> parse_inner_algorithm(const std::string& name) {
  const AlgorithmFamily* f = find_family(name);
  if (f != nullptr && f->inner != nullptr) return f->kind;
  std::string known;
  for (const AlgorithmFamily& g : table()) {
    if (g.inner != nullptr) known += (known.empty() ? "" : ", ") + g.name;
  }
  return fail(Errc::InvalidArgument,
              "unknown inner algorithm '" + name + "' (known: " + known + ")");
}

}  // namespace topotune::algo
