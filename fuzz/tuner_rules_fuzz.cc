// libFuzzer target: bytes -> the NCCL tuner plugin's rules parser (tuner_plugin/rules.h).
// A file is all or nothing: rules and no error, or an error and no rules. Every accepted
// rule stays inside NCCL's index ranges (its protocol one of NCCL's three or `any`) and the
// parser's bounds, and find_rule returns one of the parsed rules.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tuner_plugin/rules.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace tp = topotune::tuner_plugin;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const tp::RulesParse p = tp::parse_rules(text);
  if (!p.error.empty() && !p.rules.empty()) __builtin_trap();
  if (p.error.size() > 200) __builtin_trap();  // one short line into NCCL's log
  if (p.rules.size() > tp::kMaxRules) __builtin_trap();
  for (const tp::Rule& r : p.rules) {
    const bool ok = r.collective >= 0 && r.collective <= 4 && r.algo >= 0 && r.algo <= 6 &&
                    (r.proto == tp::kAnyProto || (r.proto >= 0 && r.proto <= 2)) &&
                    r.min_bytes <= r.max_bytes && r.channels >= 0 &&
                    r.channels <= tp::kMaxChannels && r.nnodes != 0 && r.nranks != 0 &&
                    r.nnodes >= -1 && r.nranks >= -1;
    if (!ok) __builtin_trap();
    const tp::Rule* hit = tp::find_rule(p.rules, r.collective, r.min_bytes, 4, 32);
    if (hit == nullptr && (r.nnodes == -1 || r.nnodes == 4) && (r.nranks == -1 || r.nranks == 32)) {
      __builtin_trap();  // r itself matches, so some rule must
    }
  }
  return 0;
}
