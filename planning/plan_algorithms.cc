#include "planning/plan_algorithms.h"

#include <algorithm>

namespace topotune::tune {

Expected<void> add_plan_algorithm(PlanInputs& inputs, std::string_view entry) {
  const bool sweep = entry.size() > kChannelSweepSuffix.size() &&
                     entry.substr(entry.size() - kChannelSweepSuffix.size()) == kChannelSweepSuffix;
  const std::string_view family =
      sweep ? entry.substr(0, entry.size() - kChannelSweepSuffix.size()) : entry;
  Expected<AlgoKind> kind = parse_algo_kind(family);
  if (!kind) {
    return fail(Errc::InvalidArgument,
                kind.error().message + "; add " + std::string(kChannelSweepSuffix) +
                    " to search a family over channel counts (e.g. nccl:default/chN)");
  }
  inputs.algorithm_kinds.push_back(*kind);
  if (sweep) inputs.channel_kinds.push_back(*kind);
  return {};
}

bool plan_sweeps_channels(const PlanInputs& inputs, AlgoKind kind) {
  if (inputs.algorithm_kinds.empty()) return true;
  const auto& k = inputs.channel_kinds;
  return std::find(k.begin(), k.end(), kind) != k.end();
}

std::string plan_algorithm_entry(const PlanInputs& inputs, AlgoKind kind) {
  const bool sweep = !inputs.algorithm_kinds.empty() && plan_sweeps_channels(inputs, kind);
  return std::string(algo_kind_name(kind)) + (sweep ? std::string(kChannelSweepSuffix) : "");
}

}  // namespace topotune::tune
