#include "cli/algorithm_flags.h"

#include <CLI/CLI.hpp>

#include "core/memory_budget.h"

namespace topotune::cli {

void add_algorithm_flags(CLI::App& sub, AlgorithmFlags& f) {
  sub.add_option("--channels", f.channels, "parallel rings/trees (default 1)");
  sub.add_option("--chunks", f.chunks, "pipeline chunks per channel (default 1)");
  sub.add_option("--shards", f.shards,
                 "parameter server shards (default: one per rank, or per host for cpu)");
  sub.add_option("--ps-placement", f.ps_placement, "parameter servers: colocated (default) or cpu");
  sub.add_option("--inner", f.inner,
                 "hierarchical inter-host algorithm: ring (default), tree, rhd, ps");
}

Expected<algo::AlgorithmOptions> algorithm_options_of(const AlgorithmFlags& f) {
  algo::AlgorithmOptions o;
  o.channels = f.channels;
  o.chunks = f.chunks;
  if (f.shards < 0) return fail(Errc::InvalidArgument, "--shards must be positive");
  o.shards = f.shards;
  TT_TRY(o.ps_placement, algo::parse_ps_placement(f.ps_placement));
  TT_TRY(o.inner, algo::parse_inner_algorithm(f.inner));
  // Schedules larger than the machine's memory are refused before they are built.
  TT_TRY(o.memory.available, available_memory());
  return o;
}

Expected<Bytes> simulation_memory_limit() {
  TT_TRY(const Bytes available, available_memory());
  const Bytes now = resident_memory().value_or(Bytes(0));
  return Bytes(saturating_add(now.value, available.value));
}

Expected<algo::MemoryBudget> simulation_budget() {
  algo::MemoryBudget m;
  TT_TRY(m.available, available_memory());
  m.consumer_bytes_per_transfer = kSimulatorBytesPerTransfer;
  return m;
}

}  // namespace topotune::cli
