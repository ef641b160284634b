#include "runtime/nccl/nccl_measure.h"

#include <algorithm>
#include <string>

#include "runtime/nccl/cuda_check.h"
#include "runtime/nccl/device_buffer.h"
#include "runtime/nccl/element_codec.h"

namespace topotune::rt {
namespace {

// Rank r's element i: in {-1, 0, 1}, so that sums over up to 256 ranks are exact in bf16.
float input_value(int rank, std::int64_t i) { return static_cast<float>((rank + i) % 3 - 1); }

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

// The buffers of one point: this rank's input and the expected result, on the host.
struct Point {
  std::vector<std::byte> input;
  std::vector<float> expected;
};

Point make_point(int rank, int ranks, std::int64_t count, sched::DataType dtype) {
  std::vector<float> in(static_cast<std::size_t>(count));
  Point p;
  p.expected.assign(in.size(), 0.0f);
  for (std::int64_t i = 0; i < count; ++i) {
    in[static_cast<std::size_t>(i)] = input_value(rank, i);
    for (int r = 0; r < ranks; ++r) p.expected[static_cast<std::size_t>(i)] += input_value(r, i);
  }
  p.input = encode_elements(in, dtype);
  return p;
}

// One iteration: refill, barrier, run between events; the time in seconds.
Expected<double> timed_run(NcclTransport& t, const Candidate& c, BufferView buffer, const Point& p,
                           cudaEvent_t start, cudaEvent_t stop) {
  TT_TRY_VOID(copy_to_device(buffer, p.input, t.stream()));
  TT_TRY_VOID(t.barrier());
  TT_CUDA(cudaEventRecord(start, t.stream()));
  TT_TRY_VOID(c.run(buffer));
  TT_CUDA(cudaEventRecord(stop, t.stream()));
  TT_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  TT_CUDA(cudaEventElapsedTime(&ms, start, stop));
  return ms * 1e-3;
}

Expected<std::int64_t> count_wrong(NcclTransport& t, BufferView buffer, const Point& p,
                                   sched::DataType dtype) {
  std::vector<std::byte> out(buffer.size);
  TT_TRY_VOID(copy_to_host(out, buffer, t.stream()));
  const std::vector<float> got = decode_elements(out, dtype);
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != p.expected[i];
  return wrong;
}

struct Timings {
  std::vector<double> seconds;
  std::int64_t wrong = 0;
};

Expected<Timings> run_iterations(NcclTransport& t, const Candidate& c, BufferView buffer,
                                 const Point& p, sched::DataType dtype,
                                 const NcclAllreduceOptions& o, const DeviceProgressFn& progress) {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  TT_CUDA(cudaEventCreate(&start));
  TT_CUDA(cudaEventCreate(&stop));
  Timings out;
  Expected<void> ok = [&]() -> Expected<void> {
    for (int k = -o.warmup; k < o.iterations; ++k) {
      if (progress) progress(k);
      TT_TRY(double s,
             timed_run(t, c, buffer, p, start, stop).context("iteration " + std::to_string(k)));
      if (k < 0) continue;
      out.seconds.push_back(s);
      if (o.verify) {
        TT_TRY(std::int64_t wrong, count_wrong(t, buffer, p, dtype));
        out.wrong += wrong;
      }
    }
    return {};
  }();
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  TT_TRY_VOID(std::move(ok));
  return out;
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
  row.busbw_GBps = row.algbw_GBps * sched::busbw_factor(sched::Collective::Allreduce, ranks);
}

Expected<MeasurementRow> measure_on_device(NcclTransport& t, const Candidate& c, std::int64_t bytes,
                                           sched::DataType dtype,
                                           const NcclAllreduceOptions& options,
                                           const DeviceProgressFn& progress) {
  if (options.iterations < 1 || options.warmup < 0) {
    return fail(Errc::InvalidArgument, "iterations must be >= 1 and warm-up >= 0");
  }
  if (bytes < 0 || bytes % sched::dtype_size(dtype) != 0) {
    return fail(Errc::InvalidArgument,
                std::to_string(bytes) + " bytes is not a whole number of elements");
  }
  const std::int64_t count = bytes / sched::dtype_size(dtype);
  const Point p = make_point(t.rank().value, t.world_size(), count, dtype);
  TT_TRY(DeviceBuffer buffer, DeviceBuffer::allocate(static_cast<std::size_t>(bytes)));
  TT_TRY(Timings timings, run_iterations(t, c, buffer.view(), p, dtype, options, progress));
  TT_TRY_VOID(allreduce_host(t, timings.seconds, ncclFloat64, ncclMax));
  std::vector<std::int64_t> wrong = {timings.wrong};
  TT_TRY_VOID(allreduce_host(t, wrong, ncclInt64, ncclSum));
  MeasurementRow row;
  row.algorithm = c.name;
  row.bytes = bytes;
  row.count = count;
  row.dtype = dtype;
  if (options.verify) row.errors = wrong[0];
  summarise_times(std::move(timings.seconds), t.world_size(), row);
  return row;
}

Candidate nccl_allreduce_candidate(NcclTransport& t, sched::DataType dtype) {
  return Candidate{"nccl", [&t, dtype](BufferView b) -> Expected<void> {
                     const std::size_t count =
                         b.size / static_cast<std::size_t>(sched::dtype_size(dtype));
                     if (count == 0) return {};  // NCCL would see a null buffer
                     TT_NCCL(ncclAllReduce(b.data, b.data, count, nccl_dtype(dtype), ncclSum,
                                           t.comm(), t.stream()));
                     return t.synchronize();
                   }};
}

Expected<std::vector<MeasurementRow>> measure_nccl_allreduce(NcclTransport& transport,
                                                             std::span<const std::int64_t> sizes,
                                                             sched::DataType dtype,
                                                             const NcclAllreduceOptions& options) {
  const Candidate nccl = nccl_allreduce_candidate(transport, dtype);
  std::vector<MeasurementRow> rows;
  for (std::int64_t bytes : sizes) {
    TT_TRY(MeasurementRow row, measure_on_device(transport, nccl, bytes, dtype, options)
                                   .context("ncclAllReduce of " + std::to_string(bytes) + " B"));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace topotune::rt
