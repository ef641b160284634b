#pragma once
// The algorithm flags shared by the commands that generate schedules (schedule, simulate):
// one declaration of --channels/--chunks/--shards/--ps-placement/--inner and one conversion
// to algo::AlgorithmOptions, so the commands cannot drift apart.

#include <cstdint>
#include <string>

#include "algorithms/algorithm.h"
#include "core/expected.h"

namespace CLI {
class App;
}

namespace topotune::cli {

/// The raw values of the algorithm flags, as parsed.
struct AlgorithmFlags {
  int channels = 1;
  int chunks = 1;
  int shards = 0;
  std::string ps_placement = "colocated";
  std::string inner = "ring";
};

/// Declares the algorithm flags on `sub`, storing into `flags` (which must outlive parsing).
void add_algorithm_flags(CLI::App& sub, AlgorithmFlags& flags);

/// Bytes the flow simulator keeps per transfer besides the schedule (its event and flow state,
/// measured as peak RSS over transfers; docs/limits.md).
inline constexpr std::int64_t kSimulatorBytesPerTransfer = 64;

/// The machine's memory (core/memory_budget.h) as a budget for schedules that the flow
/// simulator then runs.
Expected<algo::MemoryBudget> simulation_budget();

/// The resident size a flow simulation may reach: the process's size now plus the machine's
/// available memory (sim::SimOptions::memory_limit).
Expected<Bytes> simulation_memory_limit();

/// Checks the flags and converts them; errors name the flag. The options carry the machine's
/// memory as their budget (for the schedule alone; simulate adds the simulator's share).
Expected<algo::AlgorithmOptions> algorithm_options_of(const AlgorithmFlags& flags);

}  // namespace topotune::cli
