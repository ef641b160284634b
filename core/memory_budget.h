#pragma once
// Memory estimates checked before work starts: a request whose schedule, simulator state or
// output would not fit is refused with "needs X GiB, Y available" instead of dying of
// std::bad_alloc halfway through. Libraries take the budget as a parameter (their options);
// only cli/ asks the machine what is available. Limits are listed in docs/limits.md.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "core/expected.h"
#include "core/units.h"

namespace topotune {

/// The memory a command may use: MemAvailable from /proc/meminfo, lowered to
/// TOPOTUNE_MEMORY_LIMIT_MB (MiB) when that is set, to the room left under the address-space
/// limit (`ulimit -v`) and under the memory limit of the process's cgroup (v1 or v2, and their
/// ancestors: containers, CI runners) when there are any. Without /proc/meminfo and without
/// the variable, 16 GiB. An unusable TOPOTUNE_MEMORY_LIMIT_MB fails with InvalidArgument.
Expected<Bytes> available_memory();

/// Fails with InvalidArgument when TOPOTUNE_MEMORY_LIMIT_MB is set but is not a whole number
/// of MiB in range: one rule for every command (the CLI checks it before any command runs,
/// so a command that never sizes memory refuses it as `simulate` does).
Expected<void> check_memory_limit_variable();

/// The process's resident size (/proc/self/statm), if readable: long runs compare it with
/// their budget as they grow, where an estimate made beforehand cannot see the peak.
std::optional<Bytes> resident_memory();

/// MemAvailable parsed from the text of /proc/meminfo ("MemAvailable:  123456 kB"), if present.
std::optional<Bytes> parse_meminfo_available(const std::string& meminfo);

/// "1.5 GiB": a byte count in GiB with one decimal (at least "0.1 GiB" for non-zero counts).
std::string format_gib(Bytes b);

/// Fails with InvalidArgument "<what> needs X GiB, Y available" when need > budget. A budget
/// of zero or less means unlimited (libraries called without one, as in unit tests).
Expected<void> check_memory(Bytes need, Bytes budget, const std::string& what);

/// a*b and a+b on non-negative counts, saturating at INT64_MAX: estimates of inputs near the
/// limits must not overflow on their way to a refusal.
std::int64_t saturating_mul(std::int64_t a, std::int64_t b);
std::int64_t saturating_add(std::int64_t a, std::int64_t b);
/// The product of non-negative factors, saturating at INT64_MAX.
std::int64_t saturating_product(std::initializer_list<std::int64_t> factors);

}  // namespace topotune
