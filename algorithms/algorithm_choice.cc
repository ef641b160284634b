#include "algorithms/algorithm_choice.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "algorithms/double_binary_tree.h"
#include "algorithms/halving_doubling.h"
#include "algorithms/hierarchical.h"
#include "algorithms/parameter_server.h"
#include "algorithms/ring_allreduce.h"
#include "algorithms/ring_broadcast.h"
#include "algorithms/ring_half.h"

namespace topotune::algo {
namespace {

constexpr std::array<AlgorithmFamily, 8> kFamilies = {{
    {AlgoKind::NcclDefault, "nccl:default", true, false, "NCCL's own algorithm choice"},
    {AlgoKind::NcclRing, "nccl:ring", true, false, "NCCL's ring (NCCL_ALGO=Ring)"},
    {AlgoKind::NcclTree, "nccl:tree", true, false, "NCCL's double binary tree (NCCL_ALGO=Tree)"},
    {AlgoKind::Ring, "ring", false, true, "topotune's flat ring"},
    {AlgoKind::DbTree, "dbtree", false, true, "topotune's double binary tree"},
    {AlgoKind::HalvingDoubling, "rhd", false, true, "recursive halving-doubling"},
    {AlgoKind::ParameterServer, "ps", false, true, "parameter server, ps(k=N): N CPU servers"},
    {AlgoKind::Hierarchical, "hierarchical", false, false,
     "hierarchical(X): intra-host reduce-scatter, X across hosts, intra-host allgather"},
}};

Expected<int> parse_count(std::string_view s, std::string_view text, const char* what) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1) {
    return fail(Errc::InvalidArgument,
                std::string("bad ") + what + " in '" + std::string(text) + "'");
  }
  return v;
}

std::int64_t ceil_log2(std::int64_t n) {
  std::int64_t k = 0;
  while ((std::int64_t{1} << k) < n) ++k;
  return k;
}

// Transfers of a flat algorithm over n ranks (`servers` shards for ps).
std::int64_t flat_transfers(AlgoKind kind, std::int64_t n, std::int64_t servers) {
  switch (kind) {
    case AlgoKind::NcclRing:
    case AlgoKind::NcclDefault:
    case AlgoKind::Ring:
      return 2 * (n - 1) * n;
    case AlgoKind::NcclTree:
    case AlgoKind::DbTree:
      return 4 * n;
    case AlgoKind::HalvingDoubling:
      return 2 * n * ceil_log2(n) + 2 * n;
    case AlgoKind::ParameterServer:
      return 2 * n * std::max<std::int64_t>(1, servers);
    case AlgoKind::Hierarchical:
      break;
  }
  return 0;
}

InnerAlgorithm inner_of(AlgoKind k) {
  switch (k) {
    case AlgoKind::DbTree:
      return InnerAlgorithm::Tree;
    case AlgoKind::HalvingDoubling:
      return InnerAlgorithm::Rhd;
    case AlgoKind::ParameterServer:
      return InnerAlgorithm::Ps;
    default:
      return InnerAlgorithm::Ring;
  }
}

std::unique_ptr<Algorithm> ring_for(sched::Collective c, const AlgorithmOptions& o) {
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

}  // namespace

std::span<const AlgorithmFamily> algorithm_families() { return kFamilies; }

const AlgorithmFamily& family_of(AlgoKind kind) {
  for (const AlgorithmFamily& f : kFamilies) {
    if (f.kind == kind) return f;
  }
  TT_ASSERT(false, "AlgoKind %d has no family", static_cast<int>(kind));
  return kFamilies[0];
}

const char* algo_kind_name(AlgoKind kind) { return family_of(kind).name; }

std::string algo_kind_names_text() {
  std::string s;
  for (const AlgorithmFamily& f : kFamilies) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

Expected<AlgoKind> parse_algo_kind(std::string_view s) {
  if (s == "nccl-default" || s == "nccl") return AlgoKind::NcclDefault;
  if (s == "tree") return AlgoKind::DbTree;
  for (const AlgorithmFamily& f : kFamilies) {
    if (s == f.name) return f.kind;
  }
  return fail(Errc::InvalidArgument, "unknown algorithm '" + std::string(s) + "' (known: " +
                                         algo_kind_names_text() + "; docs/algorithms.md)");
}

std::string AlgorithmChoice::name() const {
  std::string n = algo_kind_name(kind);
  if (kind == AlgoKind::ParameterServer && servers > 0) n += "(k=" + std::to_string(servers) + ")";
  if (kind == AlgoKind::Hierarchical) {
    AlgorithmChoice in;
    in.kind = inner;
    in.servers = servers;
    n += "(" + in.name() + ")";
  }
  if (channels > 0) n += "/ch" + std::to_string(channels);
  return n;
}

Expected<AlgorithmChoice> parse_algorithm_choice(std::string_view text) {
  AlgorithmChoice c;
  std::string_view s = text;
  if (const auto slash = s.find("/ch"); slash != std::string_view::npos) {
    TT_TRY(c.channels, parse_count(s.substr(slash + 3), text, "channel count"));
    s = s.substr(0, slash);
  }
  std::string_view arg;
  bool has_arg = false;
  if (s.starts_with("hierarchical:")) {
    arg = s.substr(13);
    s = s.substr(0, 12);
    has_arg = true;
  } else if (const auto open = s.find('('); open != std::string_view::npos && s.ends_with(')')) {
    arg = s.substr(open + 1, s.size() - open - 2);
    s = s.substr(0, open);
    has_arg = true;
  }
  TT_TRY(c.kind, parse_algo_kind(s).context(std::string(text)));
  if (c.kind == AlgoKind::ParameterServer && has_arg) {
    if (!arg.starts_with("k="))
      return fail(Errc::InvalidArgument, "ps needs (k=N): " + std::string(text));
    TT_TRY(c.servers, parse_count(arg.substr(2), text, "server count"));
  } else if (c.kind == AlgoKind::Hierarchical) {
    TT_TRY(const AlgorithmChoice in, parse_algorithm_choice(has_arg ? arg : "ring"));
    if (!family_of(in.kind).inner || in.channels != 0) {
      return fail(Errc::InvalidArgument, "bad inner algorithm in '" + std::string(text) +
                                             "' (ring, dbtree, rhd, ps(k=N))");
    }
    c.inner = in.kind;
    c.servers = in.servers;
  } else if (has_arg) {
    return fail(Errc::InvalidArgument,
                "unexpected '(" + std::string(arg) + ")' in '" + std::string(text) + "'");
  }
  return c;
}

std::int64_t estimated_transfers(const AlgorithmChoice& a, int hosts, int gpus_per_host) {
  const std::int64_t h = hosts, g = gpus_per_host, c = std::max(1, a.channels);
  if (a.kind == AlgoKind::Hierarchical) {
    // Intra-host reduce-scatter and allgather rings, then the inner algorithm on each rail.
    return c * (2 * (g - 1) * h * g + g * flat_transfers(a.inner, h, a.servers));
  }
  return c * flat_transfers(a.kind, h * g, a.servers);
}

Expected<std::unique_ptr<Algorithm>> make_choice_algorithm(const AlgorithmChoice& a,
                                                           AlgorithmOptions o,
                                                           sched::Collective collective) {
  if (a.is_nccl()) {
    return fail(Errc::Unsupported, a.name() +
                                       " is NCCL's own algorithm: topotune has no schedule "
                                       "of it (`topotune predict --algo " +
                                       a.name() + "` times it)");
  }
  if (a.channels > 0) o.channels = a.channels;
  if (a.servers > 0) {
    o.shards = a.servers;
    o.ps_placement = PsPlacement::Cpu;  // ps(k=N) is N CPU servers, as the planner prices it
  }
  switch (a.kind) {
    case AlgoKind::Ring:
      return ring_for(collective, o);
    case AlgoKind::DbTree:
      return std::unique_ptr<Algorithm>(new DoubleBinaryTree(o));
    case AlgoKind::HalvingDoubling:
      return std::unique_ptr<Algorithm>(new HalvingDoubling(o));
    case AlgoKind::ParameterServer:
      return std::unique_ptr<Algorithm>(new ParameterServer(o));
    case AlgoKind::Hierarchical:
      o.inner = inner_of(a.inner);
      return std::unique_ptr<Algorithm>(new Hierarchical(o));
    default:
      break;
  }
  TT_ASSERT(false, "unhandled algorithm %s", a.name().c_str());
  return fail(Errc::Internal, a.name());
}

}  // namespace topotune::algo
