#include "algorithms/registry.h"

#include <array>

namespace topotune::algo {
namespace {

// The ring variants of the other collectives, named directly: ring's factory for that
// collective.
struct RingVariant {
  const char* name;
  sched::Collective collective;
};
constexpr std::array<RingVariant, 3> kRingVariants = {{
    {"reduce_scatter_ring", sched::Collective::ReduceScatter},
    {"allgather_ring", sched::Collective::Allgather},
    {"broadcast_ring", sched::Collective::Broadcast},
}};

}  // namespace

std::vector<std::string> algorithm_names() {
  std::vector<std::string> out;
  for (const AlgorithmFamily& f : algorithm_families()) {
    if (f.make == nullptr) continue;
    if (f.argument != FamilyArgument::Inner) {
      out.push_back(f.name);
      continue;
    }
    for (const AlgorithmFamily& in : algorithm_families()) {
      if (in.inner != nullptr) out.push_back(f.name + "(" + in.name + ")");
    }
  }
  for (const RingVariant& v : kRingVariants) out.emplace_back(v.name);
  return out;
}

std::string algorithm_names_text() {
  std::string schedules, bare, nccl;
  for (const AlgorithmFamily& f : algorithm_families()) {
    if (f.nccl) {
      nccl += (nccl.empty() ? "" : ", ") + f.name;
      continue;
    }
    schedules += (schedules.empty() ? "" : ", ") + f.name;
    if (f.argument == FamilyArgument::Servers) schedules += "(k=N)";
    if (f.argument == FamilyArgument::Inner) schedules += "(" + inner_names_text("|") + ")";
    if (f.argument != FamilyArgument::None) bare += (bare.empty() ? "" : " and ") + f.name;
  }
  std::string variants;
  for (const RingVariant& v : kRingVariants) {
    variants += (variants.empty() ? "" : ", ") + std::string(v.name);
  }
  return schedules + ", any of them with /chN (channels); " + bare +
         " alone take --shards/--ps-placement/--inner; " + variants + "; NCCL's " + nccl +
         " are timed by `topotune predict` (docs/algorithms.md)";
}

Expected<std::unique_ptr<Algorithm>> make_algorithm(std::string_view name,
                                                    const AlgorithmOptions& options,
                                                    sched::Collective collective) {
  for (const RingVariant& v : kRingVariants) {
    if (name == v.name) return family_of(AlgoKind::Ring).make(options, v.collective);
  }
  // A family that takes an argument, named without it: the flags decide what the name leaves
  // open (--shards/--ps-placement for ps, --inner for hierarchical).
  if (const AlgorithmFamily* f = find_family(name);
      f != nullptr && f->make != nullptr && f->argument != FamilyArgument::None) {
    return f->make(options, collective);
  }
  auto choice = parse_algorithm_choice(name);
  if (!choice) {
    return fail(Errc::NotFound, "unknown algorithm '" + std::string(name) +
                                    "' (known: " + algorithm_names_text() + ")");
  }
  return make_choice_algorithm(*choice, options, collective);
}

}  // namespace topotune::algo
