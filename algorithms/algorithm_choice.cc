#include "algorithms/algorithm_choice.h"

#include <algorithm>
#include <charconv>

namespace topotune::algo {
namespace {

Expected<int> parse_count(std::string_view s, std::string_view text, const char* what) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1) {
    return fail(Errc::InvalidArgument,
                std::string("bad ") + what + " in '" + std::string(text) + "'");
  }
  return v;
}

// Whether `s` is "F:X" for a family F that takes an inner family (nccl:ring is a name).
bool takes_inner(std::string_view s, std::size_t colon) {
  const AlgorithmFamily* f = find_family(s.substr(0, colon));
  return f != nullptr && f->argument == FamilyArgument::Inner && find_family(s) == nullptr;
}

}  // namespace

const char* algo_kind_name(AlgoKind kind) { return family_of(kind).name.c_str(); }

std::string algo_kind_names_text() {
  std::string s;
  for (const AlgorithmFamily& f : algorithm_families()) s += (s.empty() ? "" : ", ") + f.name;
  return s;
}

Expected<AlgoKind> parse_algo_kind(std::string_view s) {
  if (const AlgorithmFamily* f = find_family(s)) return f->kind;
  return fail(Errc::InvalidArgument, "unknown algorithm '" + std::string(s) + "' (known: " +
                                         algo_kind_names_text() + "; docs/algorithms.md)");
}

std::string AlgorithmChoice::name() const {
  const AlgorithmFamily& f = family_of(kind);
  std::string n = f.name;
  if (f.argument == FamilyArgument::Servers && servers > 0) {
    n += "(k=" + std::to_string(servers) + ")";
  }
  if (f.argument == FamilyArgument::Inner) {
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
  if (const auto colon = s.find(':'); colon != std::string_view::npos && takes_inner(s, colon)) {
    // "hierarchical:X" = "hierarchical(X)".
    arg = s.substr(colon + 1);
    s = s.substr(0, colon);
    has_arg = true;
  } else if (const auto open = s.find('('); open != std::string_view::npos && s.ends_with(')')) {
    arg = s.substr(open + 1, s.size() - open - 2);
    s = s.substr(0, open);
    has_arg = true;
  }
  TT_TRY(c.kind, parse_algo_kind(s).context(std::string(text)));
  const AlgorithmFamily& f = family_of(c.kind);
  if (f.argument == FamilyArgument::Servers && has_arg) {
    if (!arg.starts_with("k="))
      return fail(Errc::InvalidArgument, f.name + " needs (k=N): " + std::string(text));
    TT_TRY(c.servers, parse_count(arg.substr(2), text, "server count"));
  } else if (f.argument == FamilyArgument::Inner) {
    TT_TRY(const AlgorithmChoice in, parse_algorithm_choice(has_arg ? arg : "ring"));
    if (family_of(in.kind).inner == nullptr || in.channels != 0) {
      return fail(Errc::InvalidArgument, "bad inner algorithm in '" + std::string(text) + "' (" +
                                             inner_names_text(", ") + ")");
    }
    c.inner = in.kind;
    c.servers = in.servers;
  } else if (has_arg) {
    return fail(Errc::InvalidArgument,
                "unexpected '(" + std::string(arg) + ")' in '" + std::string(text) + "'");
  }
  return c;
}

std::string inner_names_text(std::string_view separator) {
  std::string s;
  for (const AlgorithmFamily& f : algorithm_families()) {
    if (f.inner == nullptr) continue;
    s += (s.empty() ? "" : std::string(separator)) + f.name;
    if (f.argument == FamilyArgument::Servers) s += "(k=N)";
  }
  return s;
}

std::int64_t estimated_transfers(const AlgorithmChoice& a, int hosts, int gpus_per_host) {
  const std::int64_t c = std::max(1, a.channels);
  return c * family_of(a.kind).transfers(hosts, gpus_per_host, a.servers, a.inner);
}

bool shift_invariant(const AlgorithmChoice& a) {
  const AlgorithmFamily& f = family_of(a.kind);
  if (f.argument == FamilyArgument::Inner) return f.shift_invariant && shift_invariant({a.inner});
  return f.shift_invariant;
}

std::vector<AlgorithmChoice> plannable_choices(std::span<const int> server_counts) {
  // One choice per family, one per server count for a family that takes servers.
  const auto each = [&server_counts](const AlgorithmFamily& f, auto&& add) {
    if (f.argument != FamilyArgument::Servers) return add(0);
    for (int k : server_counts) add(k);
  };
  std::vector<AlgorithmChoice> out;
  for (const AlgorithmFamily& f : algorithm_families()) {
    if (f.argument != FamilyArgument::Inner) {
      each(f, [&](int k) { out.push_back({f.kind, AlgoKind::Ring, k}); });
      continue;
    }
    for (const AlgorithmFamily& in : algorithm_families()) {
      if (in.inner == nullptr) continue;
      each(in, [&](int k) { out.push_back({f.kind, in.kind, k}); });
    }
  }
  return out;
}

Expected<std::unique_ptr<Algorithm>> make_choice_algorithm(const AlgorithmChoice& a,
                                                           AlgorithmOptions o,
                                                           sched::Collective collective) {
  const AlgorithmFamily& f = family_of(a.kind);
  if (f.make == nullptr) {
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
  if (f.argument == FamilyArgument::Inner) o.inner = a.inner;
  return f.make(o, collective);
}

}  // namespace topotune::algo
