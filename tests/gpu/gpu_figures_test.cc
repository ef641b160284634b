// Measured figures of one GPU, printed as parseable lines for the catalog (scripts/
// gpu_figures.sh collects them):
//   GPU_FIGURE {"name": "...", "value": <number>, "unit": "...", "bytes": <S>, "device": "..."}
// - reduction kernels vs a device-to-device copy, as memory traffic per second: a sum reads
//   dst and src and writes dst (3 S bytes), a copy reads and writes once (2 S bytes). The
//   reduction is memory-bound, so the target is >= 80% of the copy's traffic rate;
// - host<->device copies from/to pinned memory, S / t per direction;
// - ncclAllReduce latency at small sizes on a one-rank communicator: NCCL's launch and
//   bookkeeping cost (one rank moves no data), the floor under every multi-rank latency.
// Each figure is the median of the timed iterations (CUDA events on the stream).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "runtime/nccl/cuda_check.h"
#include "runtime/nccl/cuda_reducer.h"
#include "runtime/nccl/device_buffer.h"
#include "runtime/nccl/element_codec.h"
#include "runtime/nccl/nccl_allreduce.h"
#include "runtime/nccl/nccl_transport.h"
#include "tests/gpu/gpu_test_env.h"

namespace topotune::rt {
namespace {

constexpr std::size_t kBig = std::size_t{256} << 20;  // large enough to leave the L2 (50 MB)
constexpr int kWarmup = 3;
constexpr int kIterations = 20;

std::string device_name() {
  cudaDeviceProp p{};
  return cudaGetDeviceProperties(&p, 0) == cudaSuccess ? p.name : "unknown";
}

void print_figure(const std::string& name, double value, const char* unit, std::size_t bytes) {
  std::printf(
      "GPU_FIGURE {\"name\": \"%s\", \"value\": %.6g, \"unit\": \"%s\", \"bytes\": %zu, "
      "\"device\": \"%s\"}\n",
      name.c_str(), value, unit, bytes, device_name().c_str());
  std::fflush(stdout);
}

// Median time of `op` over kIterations after kWarmup, timed with events on `stream`.
Expected<Seconds> median_time(cudaStream_t stream, const std::function<Expected<void>()>& op) {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  TT_CUDA(cudaEventCreate(&start));
  TT_CUDA(cudaEventCreate(&stop));
  std::vector<double> times;
  Expected<void> ok = [&]() -> Expected<void> {
    for (int k = 0; k < kWarmup + kIterations; ++k) {
      TT_CUDA(cudaEventRecord(start, stream));
      TT_TRY_VOID(op());
      TT_CUDA(cudaEventRecord(stop, stream));
      TT_CUDA(cudaEventSynchronize(stop));
      float ms = 0;
      TT_CUDA(cudaEventElapsedTime(&ms, start, stop));
      if (k >= kWarmup) times.push_back(ms * 1e-3);
    }
    return {};
  }();
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  TT_TRY_VOID(std::move(ok));
  std::sort(times.begin(), times.end());
  return Seconds(times[times.size() / 2]);
}

Expected<void> memcpy_op(void* dst, const void* src, std::size_t n, cudaMemcpyKind kind,
                         cudaStream_t stream) {
  TT_CUDA(cudaMemcpyAsync(dst, src, n, kind, stream));
  return {};
}

TEST(GpuFigures, DeviceInfo) {
  TT_REQUIRE_GPU();
  cudaDeviceProp p{};
  int runtime = 0;
  int driver = 0;
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  ASSERT_EQ(cudaRuntimeGetVersion(&runtime), cudaSuccess);
  ASSERT_EQ(cudaDriverGetVersion(&driver), cudaSuccess);
  std::printf(
      "GPU_INFO {\"device\": \"%s\", \"sm\": \"%d.%d\", \"multiprocessors\": %d, "
      "\"memory_bytes\": %zu, \"l2_bytes\": %d, \"cuda_runtime\": %d, "
      "\"cuda_driver\": %d, \"nccl\": \"%s\"}\n",
      p.name, p.major, p.minor, p.multiProcessorCount, p.totalGlobalMem, p.l2CacheSize, runtime,
      driver, nccl_version_string().c_str());
  EXPECT_GE(p.major, 8) << "the backend is compiled for sm_80 and sm_90 (+ compute_90 PTX)";
}

TEST(GpuFigures, ReductionKernelsReachMostOfCopyBandwidth) {
  TT_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  auto a = DeviceBuffer::allocate(kBig);
  auto b = DeviceBuffer::allocate(kBig);
  ASSERT_TRUE(a && b);
  ASSERT_EQ(cudaMemset(a->data(), 0, kBig), cudaSuccess);
  ASSERT_EQ(cudaMemset(b->data(), 0, kBig), cudaSuccess);
  auto copy = median_time(stream, [&] {
    return memcpy_op(a->data(), b->data(), kBig, cudaMemcpyDeviceToDevice, stream);
  });
  ASSERT_TRUE(copy.has_value()) << copy.error().message;
  const double copy_rate = 2.0 * kBig / copy->value;
  print_figure("d2d_copy_traffic", copy_rate / 1e9, "GB/s", kBig);
  CudaReducer reducer(stream);
  for (sched::DataType t : {sched::DataType::F32, sched::DataType::F16, sched::DataType::BF16}) {
    // src = 1 everywhere; dst starts at 0, so after k sums dst = k (exact for k <= 256).
    const std::size_t n = kBig / static_cast<std::size_t>(sched::dtype_size(t));
    const std::vector<std::byte> one = encode_elements(std::vector<float>{1.0f}, t);
    std::vector<std::byte> ones(kBig);
    for (std::size_t i = 0; i < n; ++i) std::copy(one.begin(), one.end(), &ones[i * one.size()]);
    ASSERT_TRUE(copy_to_device(b->view(), ones, stream));
    ASSERT_EQ(cudaMemset(a->data(), 0, kBig), cudaSuccess);
    auto sum = median_time(stream, [&] { return reducer.sum(a->view(), b->view(), t); });
    ASSERT_TRUE(sum.has_value()) << sum.error().message;
    const double sum_rate = 3.0 * kBig / sum->value;
    const std::string dt = sched::dtype_name(t);
    print_figure("reduce_" + dt + "_traffic", sum_rate / 1e9, "GB/s", kBig);
    print_figure("reduce_" + dt + "_vs_copy", sum_rate / copy_rate, "ratio", kBig);
    EXPECT_GE(sum_rate / copy_rate, 0.8) << dt << " reduction below 80% of copy bandwidth";
    std::vector<std::byte> head(64);
    ASSERT_TRUE(copy_to_host(head, BufferView{a->data() + kBig - 64, 64}, stream));
    for (float v : decode_elements(head, t)) EXPECT_EQ(v, kWarmup + kIterations) << dt;
  }
  (void)cudaStreamDestroy(stream);
}

TEST(GpuFigures, PinnedHostDeviceCopyBandwidth) {
  TT_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  auto host = PinnedBuffer::allocate(kBig);
  auto dev = DeviceBuffer::allocate(kBig);
  ASSERT_TRUE(host && dev);
  for (std::size_t i = 0; i < kBig; i += 4096) host->data()[i] = static_cast<std::byte>(i >> 12);
  auto h2d = median_time(stream, [&] {
    return memcpy_op(dev->data(), host->data(), kBig, cudaMemcpyHostToDevice, stream);
  });
  auto d2h = median_time(stream, [&] {
    return memcpy_op(host->data(), dev->data(), kBig, cudaMemcpyDeviceToHost, stream);
  });
  ASSERT_TRUE(h2d && d2h);
  print_figure("h2d_pinned", kBig / h2d->value / 1e9, "GB/s", kBig);
  print_figure("d2h_pinned", kBig / d2h->value / 1e9, "GB/s", kBig);
  // The round trip must preserve the bytes (the copies really happened).
  for (std::size_t i = 0; i < kBig; i += 4096) {
    ASSERT_EQ(host->data()[i], static_cast<std::byte>(i >> 12)) << "byte " << i;
  }
  (void)cudaStreamDestroy(stream);
}

TEST(GpuFigures, NcclAllreduceLatencyAtSmallSizes) {
  TT_REQUIRE_GPU();
  auto t = NcclTransport::create_single(0, {});
  ASSERT_TRUE(t.has_value()) << t.error().message;
  for (std::int64_t bytes : {4, 64, 1024, 8192, 65536}) {
    sched::CollectiveSpec spec;
    spec.bytes = Bytes(bytes);
    spec.in_place = false;
    auto r = run_nccl_allreduce_baseline(**t, spec, {.warmup = 10, .iterations = 100});
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_EQ(r->wrong, 0);
    std::vector<Seconds> times = r->times;
    std::sort(times.begin(), times.end());
    print_figure("nccl_allreduce_1rank_latency", times[times.size() / 2].us(), "us",
                 static_cast<std::size_t>(bytes));
  }
}

}  // namespace
}  // namespace topotune::rt
