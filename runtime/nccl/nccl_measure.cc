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

// The buffers of one point: this rank's input, the expected result and the elements the
// check compares, on the host.
struct Point {
  std::vector<std::byte> input;
  std::vector<float> expected;
  std::size_t check_begin = 0, check_end = 0;
};

// Allreduce: the sum everywhere. Reduce-scatter: the sum, checked on this rank's block only
// (sched::block). Allgather: each rank starts with its own block (zeros elsewhere) and ends
// with every block's owner's input.
Point make_point(int rank, int ranks, std::int64_t count, sched::DataType dtype,
                 sched::Collective c) {
  std::vector<float> in(static_cast<std::size_t>(count), 0.0f);
  Point p;
  p.expected.assign(in.size(), 0.0f);
  p.check_end = in.size();
  const int esize = sched::dtype_size(dtype);
  const sched::Slice whole{Bytes(0), Bytes(count * esize)};
  for (int owner = 0; owner < ranks; ++owner) {
    const sched::Slice b = sched::block(whole, esize, owner, ranks);
    const auto lo = static_cast<std::size_t>(b.offset.value / esize);
    const auto hi = static_cast<std::size_t>(b.end().value / esize);
    if (c == sched::Collective::ReduceScatter && owner == rank) {
      p.check_begin = lo;
      p.check_end = hi;
    }
    for (std::size_t i = lo; i < hi; ++i) {
      const auto e = static_cast<std::int64_t>(i);
      if (c != sched::Collective::Allgather || owner == rank) in[i] = input_value(rank, e);
      if (c == sched::Collective::Allgather) {
        p.expected[i] = input_value(owner, e);
      } else {
        for (int r = 0; r < ranks; ++r) p.expected[i] += input_value(r, e);
      }
    }
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
  for (std::size_t i = p.check_begin; i < p.check_end; ++i) wrong += got[i] != p.expected[i];
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

void summarise_times(std::vector<double> seconds, int ranks, MeasurementRow& row,
                     sched::Collective collective) {
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
  row.busbw_GBps = row.algbw_GBps * sched::busbw_factor(collective, ranks);
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
  const Point p = make_point(t.rank().value, t.world_size(), count, dtype, options.collective);
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
  summarise_times(std::move(timings.seconds), t.world_size(), row, options.collective);
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

Candidate nccl_collective_candidate(NcclTransport& t, sched::DataType dtype,
                                    sched::Collective collective) {
  if (collective == sched::Collective::Allreduce) return nccl_allreduce_candidate(t, dtype);
  const bool gather = collective == sched::Collective::Allgather;
  return Candidate{
      "nccl", [&t, dtype, gather](BufferView b) -> Expected<void> {
        const auto esize = static_cast<std::size_t>(sched::dtype_size(dtype));
        const std::size_t count = b.size / esize;
        const auto n = static_cast<std::size_t>(t.world_size());
        if (count == 0) return {};
        if (count % n != 0) {
          return fail(Errc::InvalidArgument, "the nccl baseline needs the element count (" +
                                                 std::to_string(count) +
                                                 ") to be a multiple of the " + std::to_string(n) +
                                                 " ranks (NCCL's blocks are equal)");
        }
        const std::size_t per_rank = count / n;
        std::byte* own = b.data + static_cast<std::size_t>(t.rank().value) * per_rank * esize;
        // In place as NCCL defines it: the rank's block of the whole buffer is
        // the all-gather's input and the reduce-scatter's output.
        if (gather) {
          TT_NCCL(ncclAllGather(own, b.data, per_rank, nccl_dtype(dtype), t.comm(), t.stream()));
        } else {
          TT_NCCL(ncclReduceScatter(b.data, own, per_rank, nccl_dtype(dtype), ncclSum, t.comm(),
                                    t.stream()));
        }
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
