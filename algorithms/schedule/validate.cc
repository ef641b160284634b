#include "algorithms/schedule/validate.h"

#include <string>

namespace topotune::sched {
namespace {

std::string where(std::size_t i) { return "transfer " + std::to_string(i); }

}  // namespace

Expected<void> validate_spec_and_endpoints(const Schedule& s) {
  TT_TRY_VOID(s.spec().check());
  for (int e = s.num_ranks(); e < s.num_endpoints(); ++e) {
    const Endpoint ep = s.endpoint(EndpointId(e));
    if (ep.host < 0) {
      return fail(Errc::InvalidSchedule, "endpoint " + std::to_string(e) + " has no host");
    }
  }
  return {};
}

Expected<void> validate(const Schedule& s) {
  TT_TRY_VOID(validate_spec_and_endpoints(s));
  const int endpoints = s.num_endpoints();
  const std::int64_t total = s.spec().bytes.value;
  const int elem = dtype_size(s.spec().dtype);
  std::uint32_t prev_end = 0;
  const auto transfers = s.transfers();
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    const Transfer& t = transfers[i];
    if (!t.src.valid() || t.src.value >= endpoints || !t.dst.valid() || t.dst.value >= endpoints) {
      return fail(Errc::InvalidSchedule, where(i) + " names an endpoint that does not exist");
    }
    if (t.src == t.dst) return fail(Errc::InvalidSchedule, where(i) + " sends to itself");
    // size > total - offset, not offset + size > total: the sum of two values read from JSON
    // can overflow.
    if (t.slice.offset.value < 0 || t.slice.size.value < 0 ||
        t.slice.size.value > total - t.slice.offset.value) {
      return fail(Errc::InvalidSchedule, where(i) + " moves a slice outside the buffer");
    }
    if (t.slice.offset.value % elem != 0 || t.slice.size.value % elem != 0) {
      return fail(Errc::InvalidSchedule, where(i) + " splits an element");
    }
    if (t.channel < 0) return fail(Errc::InvalidSchedule, where(i) + " has a negative channel");
    if (t.dep_end < prev_end || t.dep_end > s.num_deps()) {
      return fail(Errc::InvalidSchedule, where(i) + " has a corrupt dependency range");
    }
    for (TransferId d : s.deps(TransferId(static_cast<std::int32_t>(i)))) {
      if (!d.valid() || d.index() >= i) {
        return fail(Errc::InvalidSchedule, where(i) + " depends on a later transfer");
      }
    }
    prev_end = t.dep_end;
  }
  return {};
}

}  // namespace topotune::sched
