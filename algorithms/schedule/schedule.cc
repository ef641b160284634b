#include "algorithms/schedule/schedule.h"

#include <cstdint>
#include <limits>

#include "algorithms/schedule/transfer_writer.h"
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
  const int elem = dtype_size(spec.dtype);
  elem_mask_ = elem - 1;
  // transfer_breaks_rules needs a power-of-two element size; otherwise build() rereads all.
  broken_ = elem <= 0 || (elem & (elem - 1)) != 0;
}

EndpointId ScheduleBuilder::add_host_cpu(int host, RankId executor) {
  TT_ASSERT(executor.valid() && executor.value < s_.spec_.ranks, "executor %d is not a rank",
            executor.value);
  s_.extra_.push_back(Endpoint{EndpointKind::HostCpu, host, executor});
  return EndpointId(s_.spec_.ranks + static_cast<int>(s_.extra_.size()) - 1);
}

// No transparent-huge-page advice (there was some): on VMs that hand freed guest memory back
// to the host (virtio-balloon free page reporting, as on the development VM), a fresh 2 MiB
// page is backed again page by page on first touch, and a cold 1024x8 ring (670 MB) spent
// 1.2 s in the kernel with the advice against 0.34 s without (docs/algorithms.md,
// "Performance"). Huge pages only won when the memory had just been freed by the process.
void ScheduleBuilder::reserve(std::size_t transfers, std::size_t deps) {
  s_.transfers_.reserve(transfers);
  s_.deps_.reserve(deps);
}

TransferId ScheduleBuilder::add(EndpointId src, EndpointId dst, Slice slice, bool reduce,
                                std::span<const TransferId> deps, int channel) {
  TT_ASSERT(!writing_, "add() while a TransferWriter is open");
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
  broken_ |= transfer_breaks_rules(src, dst, slice, s_.spec_.bytes.value, elem_mask_);
  s_.transfers_.push_back(Transfer{src, dst, slice, static_cast<std::uint32_t>(s_.deps_.size()),
                                   static_cast<std::int16_t>(channel), reduce});
  return TransferId(next);
}

TransferId ScheduleBuilder::add(EndpointId src, EndpointId dst, Slice slice, bool reduce,
                                TransferId dep, int channel) {
  if (!dep.valid()) return add(src, dst, slice, reduce, std::span<const TransferId>{}, channel);
  return add(src, dst, slice, reduce, std::span<const TransferId>(&dep, 1), channel);
}

TransferWriter ScheduleBuilder::write(std::size_t transfers, std::size_t deps) {
  TT_ASSERT(!writing_, "write() while a TransferWriter is open");
  const std::size_t t0 = s_.transfers_.size(), d0 = s_.deps_.size();
  TT_ASSERT(t0 + transfers <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()),
            "too many transfers");
  TT_ASSERT(d0 + deps <= std::numeric_limits<std::uint32_t>::max(), "too many dependencies");
  // UninitAllocator: resize() only makes room; the writer writes every element it keeps.
  s_.transfers_.resize(t0 + transfers);
  s_.deps_.resize(d0 + deps);
  writing_ = true;
  Transfer* t = s_.transfers_.data();
  TransferId* d = s_.deps_.data();
  return TransferWriter(*this, t, t + t0, t + t0 + transfers, d, d + d0, d + d0 + deps,
                        s_.spec_.bytes.value, elem_mask_, s_.num_endpoints());
}

void ScheduleBuilder::end_write(std::size_t transfers, std::size_t deps, bool broken) {
  s_.transfers_.resize(transfers);  // shrinking: nothing is written or moved
  s_.deps_.resize(deps);
  broken_ |= broken;
  writing_ = false;
}

TransferWriter::TransferWriter(ScheduleBuilder& builder, Transfer* t_base, Transfer* t,
                               Transfer* t_end, TransferId* d_base, TransferId* d,
                               TransferId* d_end, std::int64_t bytes, std::int64_t elem_mask,
                               int endpoints)
    : builder_(&builder),
      t_base_(t_base),
      t_(t),
      t_end_(t_end),
      d_base_(d_base),
      dep_(d),
      dep_end_(d_end),
      next_(static_cast<std::int32_t>(t - t_base)),
      bytes_(bytes),
      elem_mask_(elem_mask),
      endpoints_(static_cast<std::uint32_t>(endpoints)) {}

void TransferWriter::finish() {
  if (builder_ == nullptr) return;
  TT_ASSERT(!bug_,
            "TransferWriter: a transfer named an endpoint that does not exist, a dependency that "
            "does not point backwards, or a channel outside 0..32767");
  builder_->end_write(static_cast<std::size_t>(t_ - t_base_),
                      static_cast<std::size_t>(dep_ - d_base_), broken_);
  builder_ = nullptr;
}

Expected<Schedule> ScheduleBuilder::build() && {
  TT_ASSERT(!writing_, "build() while a TransferWriter is open");
  if (broken_) {
    TT_TRY_VOID(validate(s_));  // names the first broken transfer
  } else {
    TT_TRY_VOID(validate_spec_and_endpoints(s_));
  }
  return std::move(s_);
}

}  // namespace topotune::sched
