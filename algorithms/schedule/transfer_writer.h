#pragma once
// TransferWriter: the bulk path of ScheduleBuilder, for generators' hot loops (a ring over
// 1024 ranks with 8 channels is 16.8 M transfers). ScheduleBuilder::write(n, d) makes room for
// n transfers and d dependencies once; each add() then writes one 32-byte transfer and its
// dependency ids straight into the schedule's arrays, with no reallocation check and no
// per-dependency branch. What ScheduleBuilder::add asserts transfer by transfer (endpoints
// exist, dependencies point backwards, channel in range) is accumulated without branches and
// asserted once in finish(); validate()'s per-transfer rules are accumulated the same way and
// make build() reread the transfers to name the broken one. Only running past the announced
// room is checked at every add(), since that would write outside the arrays.
//
// Usage:
//   TransferWriter w = builder.write(n, 2 * n);
//   const TransferId a = w.add(src, dst, slice, /*reduce=*/true, {});
//   w.add(dst, src, slice, false, {a}, /*channel=*/1);
//   w.finish();  // or let w go out of scope

#include <cstddef>
#include <cstdint>
#include <span>

#include "algorithms/schedule/schedule.h"
#include "algorithms/schedule/validate.h"
#include "core/assert.h"

namespace topotune::sched {

/// Writes transfers into a ScheduleBuilder; see the file comment. Not copyable or movable:
/// it lives in the scope that fills it.
class TransferWriter {
 public:
  TransferWriter(const TransferWriter&) = delete;
  TransferWriter& operator=(const TransferWriter&) = delete;
  ~TransferWriter() { finish(); }

  /// The id the next add() returns.
  TransferId next_id() const { return TransferId(next_); }

  /// Appends a transfer with the fixed list `deps` (e.g. `{}` or `{tail, recv}`); the same
  /// meaning as ScheduleBuilder::add.
  template <std::size_t N>
  TransferId add(EndpointId src, EndpointId dst, Slice slice, bool reduce,
                 const TransferId (&deps)[N], int channel = 0) {
    TT_ASSERT(static_cast<std::size_t>(dep_end_ - dep_) >= N,
              "TransferWriter: more deps than announced");
    for (std::size_t k = 0; k < N; ++k) put_dep(deps[k]);
    return put(src, dst, slice, reduce, channel);
  }
  /// Appends a transfer with a dependency list of any length (`{}`: none).
  TransferId add(EndpointId src, EndpointId dst, Slice slice, bool reduce,
                 std::span<const TransferId> deps, int channel = 0) {
    TT_ASSERT(static_cast<std::size_t>(dep_end_ - dep_) >= deps.size(),
              "TransferWriter: more deps than announced");
    for (TransferId d : deps) put_dep(d);
    return put(src, dst, slice, reduce, channel);
  }

  /// Hands what was written to the builder and asserts the accumulated checks. Idempotent;
  /// the destructor calls it.
  void finish();

 private:
  friend class ScheduleBuilder;
  /// Room: transfers [t, t_end) of the array starting at t_base, deps likewise.
  TransferWriter(ScheduleBuilder& builder, Transfer* t_base, Transfer* t, Transfer* t_end,
                 TransferId* d_base, TransferId* d, TransferId* d_end, std::int64_t bytes,
                 std::int64_t elem_mask, int endpoints);

  void put_dep(TransferId d) {
    // Unsigned: an invalid id (-1) compares as huge, so one test covers both conditions.
    bug_ |= static_cast<std::uint32_t>(d.value) >= static_cast<std::uint32_t>(next_);
    *dep_++ = d;
  }
  TransferId put(EndpointId src, EndpointId dst, Slice slice, bool reduce, int channel) {
    TT_ASSERT(t_ != t_end_, "TransferWriter: more transfers than announced");
    bug_ |= (static_cast<std::uint32_t>(src.value) >= endpoints_) |
            (static_cast<std::uint32_t>(dst.value) >= endpoints_) |
            (static_cast<std::uint32_t>(channel) > 0x7fffu);
    broken_ |= transfer_breaks_rules(src, dst, slice, bytes_, elem_mask_);
    const auto dep_end = static_cast<std::uint32_t>(dep_ - d_base_);
    *t_++ = Transfer{src, dst, slice, dep_end, static_cast<std::int16_t>(channel), reduce};
    return TransferId(next_++);
  }

  ScheduleBuilder* builder_;  ///< null once finished
  Transfer* t_base_;          ///< start of the transfer array: next_ = t_ - t_base_
  Transfer* t_;               ///< next transfer to write
  Transfer* t_end_;
  TransferId* d_base_;  ///< start of the CSR array: dep_end is an offset from it
  TransferId* dep_;     ///< next dependency to write
  TransferId* dep_end_;
  std::int32_t next_;
  std::int64_t bytes_;
  std::int64_t elem_mask_;
  std::uint32_t endpoints_;
  bool bug_ = false;
  bool broken_ = false;
};

}  // namespace topotune::sched
