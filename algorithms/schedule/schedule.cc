#include "algorithms/schedule/schedule.h"

#include <cstdint>
#include <limits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "algorithms/schedule/validate.h"
#include "core/assert.h"

namespace topotune::sched {

Endpoint Schedule::endpoint(EndpointId id) const {
  TT_ASSERT(id.valid() && id.value < num_endpoints(), "endpoint %d out of range", id.value);
  if (id.value < spec_.ranks) return Endpoint{EndpointKind::Rank, -1, RankId(id.value)};
  return extra_[static_cast<std::size_t>(id.value - spec_.ranks)];
}

std::span<const TransferId> Schedule::deps(TransferId id) const {
  const std::size_t i = id.index();
  const std::uint32_t begin = i == 0 ? 0 : transfers_[i - 1].dep_end;
  return std::span<const TransferId>(deps_).subspan(begin, transfers_[i].dep_end - begin);
}

ScheduleBuilder::ScheduleBuilder(CollectiveSpec spec, std::string algorithm) {
  s_.spec_ = spec;
  s_.algorithm_ = std::move(algorithm);
}

EndpointId ScheduleBuilder::add_host_cpu(int host, RankId executor) {
  TT_ASSERT(executor.valid() && executor.value < s_.spec_.ranks, "executor %d is not a rank",
            executor.value);
  s_.extra_.push_back(Endpoint{EndpointKind::HostCpu, host, executor});
  return EndpointId(s_.spec_.ranks + static_cast<int>(s_.extra_.size()) - 1);
}

namespace {

// Schedules of millions of transfers fill hundreds of MB; with 4 KiB pages, generating them
// spent three quarters of its time in page faults. Transparent huge pages (Linux, "madvise"
// mode) cut that to a few percent. Advice only: nothing changes where it is not honoured.
void advise_huge_pages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  if (bytes < 4 * kHuge) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace

void ScheduleBuilder::reserve(std::size_t transfers, std::size_t deps) {
  s_.transfers_.reserve(transfers);
  s_.deps_.reserve(deps);
  advise_huge_pages(s_.transfers_.data(), s_.transfers_.capacity() * sizeof(Transfer));
  advise_huge_pages(s_.deps_.data(), s_.deps_.capacity() * sizeof(TransferId));
}

TransferId ScheduleBuilder::add(EndpointId src, EndpointId dst, Slice slice, bool reduce,
                                std::span<const TransferId> deps, int channel) {
  const auto next = static_cast<std::int32_t>(s_.transfers_.size());
  TT_ASSERT(src.valid() && src.value < s_.num_endpoints(), "bad src endpoint %d", src.value);
  TT_ASSERT(dst.valid() && dst.value < s_.num_endpoints(), "bad dst endpoint %d", dst.value);
  TT_ASSERT(channel >= 0 && channel <= std::numeric_limits<std::int16_t>::max(), "bad channel %d",
            channel);
  for (TransferId d : deps) {
    TT_ASSERT(d.valid() && d.value < next, "dependency %d of transfer %d does not point backwards",
              d.value, next);
    s_.deps_.push_back(d);
  }
  TT_ASSERT(s_.deps_.size() <= std::numeric_limits<std::uint32_t>::max(), "too many dependencies");
  Transfer t;
  t.src = src;
  t.dst = dst;
  t.slice = slice;
  t.reduce = reduce;
  t.channel = static_cast<std::int16_t>(channel);
  t.dep_end = static_cast<std::uint32_t>(s_.deps_.size());
  s_.transfers_.push_back(t);
  return TransferId(next);
}

TransferId ScheduleBuilder::add(EndpointId src, EndpointId dst, Slice slice, bool reduce,
                                TransferId dep, int channel) {
  if (!dep.valid()) return add(src, dst, slice, reduce, std::span<const TransferId>{}, channel);
  return add(src, dst, slice, reduce, std::span<const TransferId>(&dep, 1), channel);
}

Expected<Schedule> ScheduleBuilder::build() && {
  TT_TRY_VOID(validate(s_));
  return std::move(s_);
}

}  // namespace topotune::sched
