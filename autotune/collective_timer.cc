#include "autotune/collective_timer.h"

namespace topotune::tune {

const char* algo_kind_name(AlgoKind k) {
  switch (k) {
    case AlgoKind::NcclDefault: return "nccl-default";
    case AlgoKind::Ring: return "ring";
    case AlgoKind::Tree: return "tree";
    case AlgoKind::HalvingDoubling: return "rhd";
    case AlgoKind::ParameterServer: return "ps";
    case AlgoKind::Hierarchical: return "hierarchical";
  }
  return "?";
}

std::string AlgorithmChoice::name() const {
  std::string n = algo_kind_name(kind);
  if (kind == AlgoKind::ParameterServer) n += "(k=" + std::to_string(servers) + ")";
  if (kind == AlgoKind::Hierarchical) {
    AlgorithmChoice in;
    in.kind = inner;
    in.servers = servers;
    n += "(" + in.name() + ")";
  }
  if (channels > 0) n += "/ch" + std::to_string(channels);
  return n;
}

Expected<AlgoKind> parse_algo_kind(const std::string& s) {
  for (AlgoKind k : {AlgoKind::NcclDefault, AlgoKind::Ring, AlgoKind::Tree,
                     AlgoKind::HalvingDoubling, AlgoKind::ParameterServer,
                     AlgoKind::Hierarchical}) {
    if (s == algo_kind_name(k)) return k;
  }
  return fail(Errc::InvalidArgument, "unknown algorithm '" + s +
                                         "' (nccl-default, ring, tree, rhd, ps(k=N), "
                                         "hierarchical(ring|tree|rhd))");
}

Expected<AlgorithmChoice> parse_algorithm_choice(const std::string& text) {
  AlgorithmChoice c;
  std::string s = text;
  if (const auto slash = s.find("/ch"); slash != std::string::npos) {
    try {
      c.channels = std::stoi(s.substr(slash + 3));
    } catch (const std::exception&) {
      return fail(Errc::InvalidArgument, "bad channel count in '" + text + "'");
    }
    s = s.substr(0, slash);
  }
  std::string arg;
  if (const auto open = s.find('('); open != std::string::npos && s.back() == ')') {
    arg = s.substr(open + 1, s.size() - open - 2);
    s = s.substr(0, open);
  }
  TT_TRY(c.kind, parse_algo_kind(s));
  if (c.kind == AlgoKind::ParameterServer) {
    if (arg.rfind("k=", 0) != 0) return fail(Errc::InvalidArgument, "ps needs (k=N): " + text);
    try {
      c.servers = std::stoi(arg.substr(2));
    } catch (const std::exception&) {
      return fail(Errc::InvalidArgument, "bad server count in '" + text + "'");
    }
  } else if (c.kind == AlgoKind::Hierarchical) {
    TT_TRY(const AlgorithmChoice in, parse_algorithm_choice(arg.empty() ? "ring" : arg));
    if (in.kind == AlgoKind::Hierarchical || in.kind == AlgoKind::NcclDefault) {
      return fail(Errc::InvalidArgument, "bad inner algorithm in '" + text + "'");
    }
    c.inner = in.kind;
    c.servers = in.servers;
  } else if (!arg.empty()) {
    return fail(Errc::InvalidArgument, "unexpected '(" + arg + ")' in '" + text + "'");
  }
  return c;
}

Expected<Seconds> CachedTimer::allreduce(const AlgorithmChoice& algo, Bytes bytes) const {
  const auto key = std::make_tuple(algo, bytes.value);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  ++misses_;
  Expected<Seconds> t = inner_.allreduce(algo, bytes);
  cache_.emplace(key, t);
  return t;
}

}  // namespace topotune::tune
