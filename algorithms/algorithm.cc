#include "algorithms/algorithm.h"

#include <cstdint>
#include <limits>
#include <string>

#include "core/enum_names.h"
#include "core/memory_budget.h"

namespace topotune::algo {

namespace {
constexpr auto kPsPlacementNames = enum_names<PsPlacement>({{PsPlacement::Colocated, "colocated"},
                                                            {PsPlacement::Cpu, "cpu"},
                                                            {PsPlacement::Colocated, "gpu", true}});
}  // namespace

const char* ps_placement_name(PsPlacement p) { return kPsPlacementNames.name_of(p); }

Expected<PsPlacement> parse_ps_placement(const std::string& name) {
  return kPsPlacementNames.parse(name, "parameter server placement");
}

Expected<void> Algorithm::check_common(const sched::CollectiveSpec& spec, const RankLayout& layout,
                                       std::initializer_list<sched::Collective> collectives) const {
  TT_TRY_VOID(spec.check());
  TT_TRY_VOID(layout.check());
  if (layout.ranks() != spec.ranks) {
    return fail(Errc::InvalidArgument, "the layout has " + std::to_string(layout.ranks()) +
                                           " ranks but the collective " +
                                           std::to_string(spec.ranks));
  }
  if (options_.channels < 1 || options_.channels > 1024) {
    return fail(Errc::InvalidArgument,
                "channels must be in 1..1024, got " + std::to_string(options_.channels));
  }
  if (options_.chunks < 1 || options_.chunks > 65536) {
    return fail(Errc::InvalidArgument,
                "chunks must be in 1..65536, got " + std::to_string(options_.chunks));
  }
  for (sched::Collective c : collectives) {
    if (c == spec.collective) return {};
  }
  std::string list;
  for (sched::Collective c : collectives)
    list += (list.empty() ? "" : ", ") + std::string(sched::collective_name(c));
  return fail(Errc::Unsupported, name() + " does not implement " +
                                     sched::collective_name(spec.collective) + " (only " + list +
                                     ")");
}

Expected<std::optional<sched::ReducedSchedule>> Algorithm::generate_reduced(
    const sched::CollectiveSpec& spec, const RankLayout& layout, int period_hosts) const {
  TT_TRY_VOID(supports(spec, layout));
  (void)period_hosts;
  return std::optional<sched::ReducedSchedule>{};
}

Expected<void> Algorithm::reserve(sched::ScheduleBuilder& b, std::int64_t transfers,
                                  std::int64_t deps) const {
  constexpr std::int64_t kMaxTransfers = std::numeric_limits<std::int32_t>::max();
  constexpr std::int64_t kMaxDeps = std::numeric_limits<std::uint32_t>::max();
  if (transfers > kMaxTransfers || deps > kMaxDeps) {
    return fail(Errc::InvalidArgument,
                name() + " would build " + std::to_string(transfers) + " transfers with " +
                    std::to_string(deps) +
                    " dependencies, more than a schedule can hold (2^31 "
                    "transfers, 2^32 dependencies): use fewer ranks, channels or chunks");
  }
  const std::int64_t per_transfer = static_cast<std::int64_t>(sizeof(sched::Transfer)) +
                                    options_.memory.consumer_bytes_per_transfer;
  const std::int64_t need =
      saturating_add(saturating_mul(transfers, per_transfer),
                     saturating_mul(deps, static_cast<std::int64_t>(sizeof(TransferId))));
  TT_TRY_VOID(check_memory(Bytes(need), options_.memory.available,
                           name() + " (" + std::to_string(transfers) + " transfers)"));
  b.reserve(static_cast<std::size_t>(transfers), static_cast<std::size_t>(deps));
  return {};
}

}  // namespace topotune::algo
