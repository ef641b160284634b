#include "tuner_plugin/rules.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

namespace topotune::tuner_plugin {
namespace {

// NCCL's spellings (ncclFuncStr, ncclAlgoStr, ncclProtoStr in src/init.cc at v2.30.7-1),
// indexed by the enum value, so log lines read like NCCL_DEBUG_SUBSYS=TUNING's.
constexpr std::array<const char*, 5> kCollectives = {"Broadcast", "Reduce", "AllGather",
                                                     "ReduceScatter", "AllReduce"};
constexpr std::array<const char*, 7> kAlgos = {
    "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
constexpr std::array<const char*, 3> kProtos = {"LL", "LL128", "Simple"};

// Lower case without '_' and '-': "NVLS_TREE", "nvls-tree" and "NVLSTree" name one thing.
std::string fold(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '_' || c == '-') continue;
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

template <std::size_t N>
std::optional<int> index_of(const std::array<const char*, N>& names, std::string_view word) {
  const std::string want = fold(word);
  for (std::size_t i = 0; i < N; ++i) {
    if (fold(names[i]) == want) return static_cast<int>(i);
  }
  return std::nullopt;
}

// A decimal integer in [lo, hi], or -1 when allow_any; the whole word must be the number.
std::optional<std::int64_t> integer(std::string_view word, std::int64_t lo, std::int64_t hi,
                                    bool allow_any) {
  if (allow_any && word == "-1") return -1;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
  if (ec != std::errc() || end != word.data() + word.size() || v < lo || v > hi) {
    return std::nullopt;
  }
  return v;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) fields.push_back(line.substr(i, j - i));
    i = j;
  }
  return fields;
}

// Quotes a word for a message, cut short and with non-printable bytes shown as '?', so a
// hostile file cannot put control characters or a long line into NCCL's log.
std::string quoted(std::string_view word) {
  std::string out = "'";
  for (char c : word.substr(0, 32)) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  return out + (word.size() > 32 ? "...'" : "'");
}

// Parses the fields of one non-empty line into `rule`; returns the reason it cannot.
std::string parse_fields(const std::vector<std::string_view>& f, Rule& rule) {
  if (f.size() != 7 && f.size() != 8) {
    return "expected 7 or 8 fields (collective min_bytes max_bytes nnodes nranks algo proto "
           "[channels]), got " +
           std::to_string(f.size());
  }
  const auto coll = index_of(kCollectives, f[0]);
  if (!coll) return "unknown collective " + quoted(f[0]);
  const auto lo = integer(f[1], 0, INT64_MAX, false);
  const auto hi = integer(f[2], 0, INT64_MAX, true);
  if (!lo || !hi) return "min_bytes and max_bytes must be integers >= 0 (max_bytes may be -1)";
  if (*hi != -1 && *hi < *lo) return "max_bytes is below min_bytes";
  const auto nodes = integer(f[3], 1, kMaxRanks, true);
  const auto ranks = integer(f[4], 1, kMaxRanks, true);
  if (!nodes || !ranks) return "nnodes and nranks must be -1 or 1.." + std::to_string(kMaxRanks);
  const auto algo = index_of(kAlgos, f[5]);
  if (!algo) return "unknown algorithm " + quoted(f[5]);
  const auto proto = fold(f[6]) == "any" ? std::optional<int>(kAnyProto) : index_of(kProtos, f[6]);
  if (!proto) return "unknown protocol " + quoted(f[6]) + " (LL, LL128, Simple or any)";
  std::optional<std::int64_t> channels = 0;
  if (f.size() == 8) channels = integer(f[7], 1, kMaxChannels, false);
  if (!channels) return "channels must be 1.." + std::to_string(kMaxChannels);
  rule = Rule{*coll,
              static_cast<std::uint64_t>(*lo),
              *hi == -1 ? UINT64_MAX : static_cast<std::uint64_t>(*hi),
              static_cast<int>(*nodes),
              static_cast<int>(*ranks),
              *algo,
              *proto,
              static_cast<int>(*channels)};
  return {};
}

RulesParse failure(std::size_t line_no, const std::string& why) {
  return RulesParse{{}, "line " + std::to_string(line_no) + ": " + why};
}

}  // namespace

bool Rule::matches(int coll, std::uint64_t nbytes, std::uint64_t comm_nodes,
                   std::uint64_t comm_ranks) const {
  return coll == collective && nbytes >= min_bytes && nbytes <= max_bytes &&
         (nnodes == -1 || static_cast<std::uint64_t>(nnodes) == comm_nodes) &&
         (nranks == -1 || static_cast<std::uint64_t>(nranks) == comm_ranks);
}

RulesParse parse_rules(std::string_view text) {
  if (text.size() > kMaxRulesFileBytes) {
    return RulesParse{{}, "file is over " + std::to_string(kMaxRulesFileBytes) + " bytes"};
  }
  RulesParse out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.size() > kMaxLineBytes) {
      return failure(line_no, "longer than " + std::to_string(kMaxLineBytes) + " bytes");
    }
    line = line.substr(0, line.find('#'));
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::vector<std::string_view> fields = split_fields(line);
    if (fields.empty()) continue;
    if (out.rules.size() == kMaxRules) {
      return failure(line_no, "more than " + std::to_string(kMaxRules) + " rules");
    }
    Rule rule;
    if (std::string why = parse_fields(fields, rule); !why.empty()) return failure(line_no, why);
    out.rules.push_back(rule);
  }
  return out;
}

const Rule* find_rule(const std::vector<Rule>& rules, int coll, std::uint64_t nbytes,
                      std::uint64_t nnodes, std::uint64_t nranks) {
  const auto it = std::find_if(rules.begin(), rules.end(), [&](const Rule& r) {
    return r.matches(coll, nbytes, nnodes, nranks);
  });
  return it == rules.end() ? nullptr : &*it;
}

const char* collective_name(int coll) {
  return coll >= 0 && coll < static_cast<int>(kCollectives.size()) ? kCollectives[coll] : "?";
}
const char* algo_name(int algo) {
  return algo >= 0 && algo < static_cast<int>(kAlgos.size()) ? kAlgos[algo] : "?";
}
const char* proto_name(int proto) {
  if (proto == kAnyProto) return "any";
  return proto >= 0 && proto < static_cast<int>(kProtos.size()) ? kProtos[proto] : "?";
}

}  // namespace topotune::tuner_plugin
