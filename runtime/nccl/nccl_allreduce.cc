#include "runtime/nccl/nccl_allreduce.h"

#include <string>

#include "runtime/nccl/cuda_check.h"
#include "runtime/nccl/device_buffer.h"
#include "runtime/nccl/element_codec.h"

namespace topotune::rt {
namespace {

// Input of rank r (see the header): values in {-1, 0, 1}.
float input_value(int rank, std::int64_t i) { return static_cast<float>((rank + i) % 3 - 1); }

std::vector<float> inputs(int rank, std::int64_t count) {
  std::vector<float> v(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) v[static_cast<std::size_t>(i)] = input_value(rank, i);
  return v;
}

// Allreduce from `send` into `recv` (the same view for in place) and a check of `recv`.
Expected<std::int64_t> verify_once(NcclTransport& t, const sched::CollectiveSpec& spec,
                                   BufferView send, BufferView recv) {
  const std::int64_t count = spec.elements();
  const std::vector<std::byte> host_in = encode_elements(inputs(t.rank().value, count), spec.dtype);
  TT_TRY_VOID(copy_to_device(send, host_in, t.stream()));
  if (count == 0) return std::int64_t{0};  // nothing to reduce; NCCL would see null buffers
  TT_NCCL(ncclAllReduce(send.data, recv.data, static_cast<std::size_t>(count),
                        nccl_dtype(spec.dtype), ncclSum, t.comm(), t.stream()));
  std::vector<std::byte> host_out(recv.size);
  TT_TRY_VOID(t.synchronize());
  TT_TRY_VOID(copy_to_host(host_out, recv, t.stream()));
  const std::vector<float> got = decode_elements(host_out, spec.dtype);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    float want = 0;  // a sum of small integers: exact in every element type
    for (int r = 0; r < t.world_size(); ++r) want += input_value(r, i);
    if (got[static_cast<std::size_t>(i)] != want) ++wrong;
  }
  return wrong;
}

// `iterations` ncclAllReduce calls, each between two events; elapsed times once all are done.
Expected<std::vector<Seconds>> timed_loop(NcclTransport& t, const sched::CollectiveSpec& spec,
                                          BufferView send, BufferView recv, int iterations) {
  const auto count = static_cast<std::size_t>(spec.elements());
  std::vector<cudaEvent_t> events(2 * static_cast<std::size_t>(iterations), nullptr);
  Expected<std::vector<Seconds>> result = [&]() -> Expected<std::vector<Seconds>> {
    for (cudaEvent_t& e : events) TT_CUDA(cudaEventCreate(&e));
    for (int k = 0; k < iterations; ++k) {
      TT_CUDA(cudaEventRecord(events[2 * k], t.stream()));
      // A zero-size point times an empty interval, as nccl-tests reports ~0 for 0 bytes.
      if (count > 0) {
        TT_NCCL(ncclAllReduce(send.data, recv.data, count, nccl_dtype(spec.dtype), ncclSum,
                              t.comm(), t.stream()));
      }
      TT_CUDA(cudaEventRecord(events[2 * k + 1], t.stream()));
    }
    TT_TRY_VOID(t.synchronize());
    std::vector<Seconds> times;
    for (int k = 0; k < iterations; ++k) {
      float ms = 0;
      TT_CUDA(cudaEventElapsedTime(&ms, events[2 * k], events[2 * k + 1]));
      times.push_back(Seconds(ms * 1e-3));
    }
    return times;
  }();
  for (cudaEvent_t e : events) {
    if (e != nullptr) (void)cudaEventDestroy(e);
  }
  return result;
}

}  // namespace

ncclDataType_t nccl_dtype(sched::DataType dtype) {
  switch (dtype) {
    case sched::DataType::F32:
      return ncclFloat32;
    case sched::DataType::F16:
      return ncclFloat16;
    case sched::DataType::BF16:
      return ncclBfloat16;
  }
  return ncclFloat32;
}

Expected<NcclAllreduceResult> run_nccl_allreduce_baseline(NcclTransport& transport,
                                                          const sched::CollectiveSpec& spec,
                                                          const NcclAllreduceOptions& options) {
  if (spec.collective != sched::Collective::Allreduce) {
    return fail(Errc::Unsupported, std::string("the nccl baseline runs allreduce only, not ") +
                                       sched::collective_name(spec.collective));
  }
  TT_TRY_VOID(spec.check());
  if (options.iterations < 1 || options.warmup < 0) {
    return fail(Errc::InvalidArgument, "nccl baseline: iterations must be >= 1, warmup >= 0");
  }
  const auto bytes = static_cast<std::size_t>(spec.bytes.value);
  TT_TRY(DeviceBuffer recv, DeviceBuffer::allocate(bytes));
  DeviceBuffer send_storage;
  if (!spec.in_place) {
    TT_TRY(send_storage, DeviceBuffer::allocate(bytes));
  }
  BufferView send = spec.in_place ? recv.view() : send_storage.view();
  NcclAllreduceResult result;
  if (options.verify) {
    TT_TRY(result.wrong, verify_once(transport, spec, send, recv.view()));
    result.verified = true;
  }
  if (options.warmup > 0) {
    TT_TRY(auto warm, timed_loop(transport, spec, send, recv.view(), options.warmup));
    (void)warm;
  }
  TT_TRY(result.times, timed_loop(transport, spec, send, recv.view(), options.iterations));
  return result;
}

}  // namespace topotune::rt
