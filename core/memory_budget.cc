#include "core/memory_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string_view>

#include "core/input_file.h"
#include "core/string_printf.h"

namespace topotune {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

std::optional<std::int64_t> env_mib(const char* name, std::string& bad) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return std::nullopt;
  const std::string_view text(env);
  std::int64_t mib = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), mib);
  if (ec != std::errc() || ptr != text.data() + text.size() || mib < 1 || mib > (kMax >> 20)) {
    bad = text;
    return std::nullopt;
  }
  return mib;
}

// Room left under the address-space limit (`ulimit -v`, RLIMIT_AS): the limit minus the
// process's present virtual size (/proc/self/statm, in pages). Past it every allocation fails
// however much memory the machine has free.
std::optional<Bytes> address_space_room() {
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_AS, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return std::nullopt;
  const auto cap = static_cast<std::int64_t>(std::min<rlim_t>(lim.rlim_cur, kMax));
  std::int64_t pages = 0;
  if (auto statm = read_input_file("/proc/self/statm", "process size", Bytes(1 << 16))) {
    std::istringstream(*statm) >> pages;
  }
  const std::int64_t used = saturating_mul(pages, ::sysconf(_SC_PAGESIZE));
  return Bytes(cap > used ? cap - used : 0);
}

// A whole number of bytes from a cgroup file ("123\n"); nothing for "max" or garbage.
std::optional<std::int64_t> cgroup_number(const std::string& path) {
  const Expected<std::string> text = read_input_file(path, "cgroup limit", Bytes(1 << 12));
  if (!text) return std::nullopt;
  std::int64_t v = 0;
  const char* end = text->data() + text->size();
  while (end > text->data() && (end[-1] == '\n' || end[-1] == ' ')) --end;
  const auto [ptr, ec] = std::from_chars(text->data(), end, v);
  if (ec != std::errc() || ptr != end || v < 0) return std::nullopt;
  return v;
}

// Room left under the memory limit of the process's cgroup and of each ancestor that has one
// (containers, CI runners, systemd slices): limit - usage. There MemAvailable still shows the
// whole machine, and past the limit the kernel kills the process instead of failing a malloc.
// cgroup v2 ("0::/path": memory.max, memory.current) and v1 ("N:memory:/path":
// memory.limit_in_bytes, memory.usage_in_bytes).
std::optional<Bytes> cgroup_room() {
  const Expected<std::string> self = read_input_file("/proc/self/cgroup", "cgroup", Bytes(1 << 16));
  if (!self) return std::nullopt;
  std::optional<Bytes> best;
  std::istringstream lines(*self);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    const bool v2 = line.compare(0, a, "0") == 0 && controllers.empty();
    if (!v2 && controllers != "memory") continue;
    const std::string base = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
    const char* limit_file = v2 ? "/memory.max" : "/memory.limit_in_bytes";
    const char* usage_file = v2 ? "/memory.current" : "/memory.usage_in_bytes";
    for (std::string path = line.substr(b + 1);; path = path.substr(0, path.rfind('/'))) {
      const std::string dir = base + (path == "/" ? "" : path);
      const auto limit = cgroup_number(dir + limit_file);
      const auto usage = cgroup_number(dir + usage_file);
      // v1 writes "no limit" as a huge page-aligned number: anything past 2^60 is none.
      if (limit && usage && *limit < (std::int64_t{1} << 60)) {
        const Bytes room(*limit > *usage ? *limit - *usage : 0);
        if (!best || room < *best) best = room;
      }
      if (path.empty() || path == "/") break;
    }
  }
  return best;
}

}  // namespace

std::optional<Bytes> resident_memory() {
  const Expected<std::string> statm =
      read_input_file("/proc/self/statm", "process size", Bytes(1 << 16));
  if (!statm) return std::nullopt;
  std::int64_t size_pages = 0, resident_pages = 0;
  std::istringstream in(*statm);
  if (!(in >> size_pages >> resident_pages)) return std::nullopt;
  return Bytes(saturating_mul(resident_pages, ::sysconf(_SC_PAGESIZE)));
}

std::optional<Bytes> parse_meminfo_available(const std::string& meminfo) {
  std::istringstream in(meminfo);
  std::string key;
  std::int64_t kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:" && kib >= 0 && kib <= (kMax >> 10)) return Bytes(kib << 10);
  }
  return std::nullopt;
}

Expected<void> check_memory_limit_variable() {
  std::string bad;
  env_mib("TOPOTUNE_MEMORY_LIMIT_MB", bad);
  if (!bad.empty()) {
    return fail(Errc::InvalidArgument,
                "TOPOTUNE_MEMORY_LIMIT_MB='" + bad + "' is not a positive whole number of MiB");
  }
  return {};
}

Expected<Bytes> available_memory() {
  TT_TRY_VOID(check_memory_limit_variable());
  std::string bad;
  const std::optional<std::int64_t> cap = env_mib("TOPOTUNE_MEMORY_LIMIT_MB", bad);
  std::optional<Bytes> avail;
  if (auto text = read_input_file("/proc/meminfo", "memory information", Bytes(1 << 20))) {
    avail = parse_meminfo_available(*text);
  }
  Bytes budget = avail ? *avail : cap ? Bytes(*cap << 20) : Bytes(std::int64_t{16} << 30);
  if (cap && Bytes(*cap << 20) < budget) budget = Bytes(*cap << 20);
  for (const std::optional<Bytes> room : {address_space_room(), cgroup_room()}) {
    if (room && *room < budget) budget = *room;
  }
  return budget;
}

std::string format_gib(Bytes b) {
  double gib = b.as_double() / static_cast<double>(std::int64_t{1} << 30);
  if (b.value > 0 && gib < 0.1) gib = 0.1;
  return string_printf("%.1f GiB", gib);
}

Expected<void> check_memory(Bytes need, Bytes budget, const std::string& what) {
  if (budget.value <= 0 || need <= budget) return {};
  return fail(Errc::InvalidArgument, what + " needs " + format_gib(need) + ", " +
                                         format_gib(budget) + " available (see docs/limits.md)");
}

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r)) return kMax;
  return r;
}

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &r)) return kMax;
  return r;
}

std::int64_t saturating_product(std::initializer_list<std::int64_t> factors) {
  std::int64_t r = 1;
  for (std::int64_t f : factors) r = saturating_mul(r, f);
  return r;
}

}  // namespace topotune
