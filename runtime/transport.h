#pragma once
// Transport: moves bytes between ranks; knows nothing of collectives or schedules.
// Implementations: LoopbackTransport (ranks as threads, tests), MpiTransport (host memory,
// Open MPI point-to-point), NcclTransport (device memory, ncclSend/ncclRecv in groups).
// One instance per rank; not thread-safe. Buffers must outlive their Request.
// Reduction is not the transport's job: the Executor does it with a Reducer (gloo keeps
// ReductionFunction apart from transport:: for the same reason).

#include <cstddef>
#include <cstdint>
#include <span>

#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "core/strong_id.h"

namespace topotune::rt {

enum class MemoryKind { Host, Device };

/// A byte range in the memory kind of the transport that produced or accepts it.
struct BufferView {
  std::byte* data = nullptr;
  std::size_t size = 0;
};
struct ConstBufferView {
  const std::byte* data = nullptr;
  std::size_t size = 0;
  ConstBufferView() = default;
  ConstBufferView(const std::byte* d, std::size_t s) : data(d), size(s) {}
  ConstBufferView(BufferView v) : data(v.data), size(v.size) {}  // NOLINT: widening is safe
};

/// Matches a send with its receive between one pair of ranks.
using Tag = std::int32_t;

/// An outstanding send or receive; opaque to callers, meaningful to the transport.
struct Request {
  std::int64_t handle = -1;
  bool valid() const { return handle >= 0; }
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual RankId rank() const = 0;
  virtual int world_size() const = 0;
  /// Host or Device: what a BufferView given to this transport may point to.
  virtual MemoryKind memory_kind() const = 0;

  [[nodiscard]] virtual Expected<Request> isend(RankId to, ConstBufferView data, Tag tag) = 0;
  [[nodiscard]] virtual Expected<Request> irecv(RankId from, BufferView data, Tag tag) = 0;
  /// Completes every request; on failure the error names the peer.
  [[nodiscard]] virtual Expected<void> wait_all(std::span<Request> requests) = 0;
  /// Non-blocking: true when the request is complete (it must then not be waited on again).
  [[nodiscard]] virtual Expected<bool> test(Request& request) = 0;

  /// Groups the isend/irecv calls that follow (NCCL: ncclGroupStart; MPI: no-op).
  virtual void begin_batch() {}
  [[nodiscard]] virtual Expected<void> end_batch() { return {}; }

  /// Barrier across all ranks (measurement harness), with the transport's own means.
  [[nodiscard]] virtual Expected<void> barrier() = 0;

  /// Largest tag this transport accepts (MPI guarantees at least 32767; MPI_TAG_UB says more).
  /// The executor maps transfer ids into [0, max_tag() - kReservedTags]; tags above that are
  /// left to the measurement harness's own messages.
  virtual Tag max_tag() const { return 32767; }
};

/// Tags at the top of a transport's range that the executor never uses (harness messages).
inline constexpr Tag kReservedTags = 16;

/// Sums and copies in the transport's memory kind (CPU loops, or CUDA kernels for Device).
class Reducer {
 public:
  virtual ~Reducer() = default;
  /// dst[i] += src[i] for every element of `dtype` in the views (same size).
  [[nodiscard]] virtual Expected<void> sum(BufferView dst, ConstBufferView src,
                                           sched::DataType dtype) = 0;
};

}  // namespace topotune::rt
