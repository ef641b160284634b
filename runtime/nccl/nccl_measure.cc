#include "runtime/nccl/nccl_measure.h"

#include <algorithm>
#include <string>

#include "runtime/nccl/cuda_check.h"
#include "runtime/nccl/device_buffer.h"

namespace topotune::rt {
namespace {

// Element-wise max (times) or sum (error counts) over all ranks, in place, through the GPU.
template <class T>
Expected<void> allreduce_host(NcclTransport& t, std::vector<T>& values, ncclDataType_t type,
                              ncclRedOp_t op) {
  const std::size_t bytes = values.size() * sizeof(T);
  TT_TRY(DeviceBuffer buf, DeviceBuffer::allocate(bytes));
  std::span<std::byte> host(reinterpret_cast<std::byte*>(values.data()), bytes);
  TT_TRY_VOID(copy_to_device(buf.view(), host, t.stream()));
  TT_NCCL(ncclAllReduce(buf.data(), buf.data(), values.size(), type, op, t.comm(), t.stream()));
  TT_TRY_VOID(t.synchronize());
  return copy_to_host(host, buf.view(), t.stream());
}

Expected<MeasurementRow> measure_one(NcclTransport& t, std::int64_t bytes, sched::DataType dtype,
                                     const NcclAllreduceOptions& options) {
  sched::CollectiveSpec spec;
  spec.ranks = t.world_size();
  spec.bytes = Bytes(bytes);
  spec.dtype = dtype;
  spec.in_place = false;
  TT_TRY(NcclAllreduceResult r, run_nccl_allreduce_baseline(t, spec, options));
  std::vector<double> seconds;
  for (Seconds s : r.times) seconds.push_back(s.value);
  TT_TRY_VOID(allreduce_host(t, seconds, ncclFloat64, ncclMax));
  std::vector<std::int64_t> wrong = {r.wrong};
  TT_TRY_VOID(allreduce_host(t, wrong, ncclInt64, ncclSum));
  MeasurementRow row;
  row.algorithm = "nccl";
  row.bytes = bytes;
  row.count = spec.elements();
  row.dtype = dtype;
  if (r.verified) row.errors = wrong[0];
  summarise_times(std::move(seconds), t.world_size(), row);
  return row;
}

}  // namespace

void summarise_times(std::vector<double> seconds, int ranks, MeasurementRow& row) {
  if (seconds.empty()) return;
  std::sort(seconds.begin(), seconds.end());
  const std::size_t n = seconds.size();
  row.time_us = seconds[n / 2] * 1e6;
  row.time_us_min = seconds.front() * 1e6;
  row.time_us_p10 = seconds[n / 10] * 1e6;
  row.time_us_p90 = seconds[std::min(n - 1, n * 9 / 10)] * 1e6;
  row.time_us_max = seconds.back() * 1e6;
  row.iterations = static_cast<int>(n);
  row.algbw_GBps = row.time_us > 0 ? static_cast<double>(row.bytes) / (row.time_us * 1e3) : 0.0;
  row.busbw_GBps = row.algbw_GBps * busbw_factor(sched::Collective::Allreduce, ranks);
}

Expected<std::vector<MeasurementRow>> measure_nccl_allreduce(NcclTransport& transport,
                                                             std::span<const std::int64_t> sizes,
                                                             sched::DataType dtype,
                                                             const NcclAllreduceOptions& options) {
  std::vector<MeasurementRow> rows;
  for (std::int64_t bytes : sizes) {
    TT_TRY(MeasurementRow row, measure_one(transport, bytes, dtype, options)
                                   .context("ncclAllReduce of " + std::to_string(bytes) + " B"));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace topotune::rt
