#pragma once
// The tuner plugin's rules file: plain text, one rule per line, `#` starts a comment.
//
//   # collective  min_bytes  max_bytes  nnodes  nranks  algo  proto   [channels]
//   allreduce     0          65535      4       32      tree  LL
//   allreduce     65536      -1         -1      -1      ring  Simple  16
//   allgather     0          -1         1       8       ring  any
//
// Fields are separated by spaces or tabs. max_bytes, nnodes and nranks may be -1 (any).
// proto may be `any`: the named algorithm with the protocol NCCL itself finds cheapest for it
// (tuner_context.h says what each API version can do with that).
// Names are NCCL's, matched ignoring case, '_' and '-' (so "reduce_scatter" and
// "NVLS_TREE" work). The first matching line wins. A file is all or nothing: one bad line
// and the parse returns no rules and one message naming the line. docs/tuner-plugin.md is
// the user's page. std only: this unit is linked into the NCCL plugin, which carries no
// topotune library, and it never throws (std::bad_alloc aside, which the plugin catches).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace topotune::tuner_plugin {

/// Bounds a hostile file cannot exceed.
inline constexpr std::size_t kMaxRulesFileBytes = 1 << 20;
inline constexpr std::size_t kMaxLineBytes = 512;
inline constexpr std::size_t kMaxRules = 4096;
/// NCCL's MAXCHANNELS (src/include/device.h, v2.30.7-1); NCCL caps a larger request itself.
inline constexpr int kMaxChannels = 64;
/// Bound on nnodes and nranks (a communicator of more ranks than this is not a typo we keep).
inline constexpr int kMaxRanks = 1 << 24;
/// Rule::proto for the word `any`: NCCL's own protocol choice for the rule's algorithm.
inline constexpr int kAnyProto = -1;

/// One line of the file. Indices are NCCL's: ncclFunc_t, NCCL_ALGO_*, NCCL_PROTO_*.
struct Rule {
  int collective = 0;                    ///< ncclFunc_t value (0..4)
  std::uint64_t min_bytes = 0;           ///< inclusive
  std::uint64_t max_bytes = UINT64_MAX;  ///< inclusive; -1 in the file
  int nnodes = -1;                       ///< -1: any
  int nranks = -1;                       ///< -1: any
  int algo = 0;                          ///< NCCL_ALGO_* (0..6)
  int proto = 0;                         ///< NCCL_PROTO_* (0..2), or kAnyProto
  int channels = 0;                      ///< 0: leave NCCL's channel count

  /// Whether this rule covers a call of `collective` for nbytes on an nnodes × nranks
  /// communicator.
  [[nodiscard]] bool matches(int coll, std::uint64_t nbytes, std::uint64_t comm_nodes,
                             std::uint64_t comm_ranks) const;
};

/// A parsed file: either rules (error empty) or no rules and a one-line reason.
struct RulesParse {
  std::vector<Rule> rules;
  std::string error;  ///< "line 3: unknown algorithm 'rnig'"; empty on success
};

/// Parses a whole file's text. Never throws except std::bad_alloc.
[[nodiscard]] RulesParse parse_rules(std::string_view text);

/// The first rule that matches, or nullptr.
[[nodiscard]] const Rule* find_rule(const std::vector<Rule>& rules, int coll, std::uint64_t nbytes,
                                    std::uint64_t nnodes, std::uint64_t nranks);

/// NCCL's names for the indices ("AllReduce", "Ring", "LL128"; "any" for kAnyProto), for log
/// lines.
[[nodiscard]] const char* collective_name(int coll);
[[nodiscard]] const char* algo_name(int algo);
[[nodiscard]] const char* proto_name(int proto);

}  // namespace topotune::tuner_plugin
