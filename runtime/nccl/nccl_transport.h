#pragma once
// NcclTransport: the Transport for device memory, over NCCL point-to-point (ncclSend/ncclRecv).
//
// One instance per rank (process), one CUDA device and one communicator each, one stream on
// which every operation is queued in program order: NCCL groups, CudaReducer kernels launched
// on stream(), the copies of device_buffer.h. A batch (begin_batch ... end_batch) is one NCCL
// group (ncclGroupStart/End), so that a rank may send to and receive from the same peer, or
// several peers, without deadlock. After the group is issued a CUDA event is recorded on the
// stream; every request of the batch completes with that event (test() = cudaEventQuery,
// wait_all() = wait for the events). isend/irecv outside a batch form a batch of one.
//
// NCCL has no tags: the n-th send from rank a to rank b matches b's n-th receive from a. The
// caller must therefore post, for every ordered pair of ranks, sends and receives in the same
// order on both sides (the executor does: it follows transfer order). Matching sizes are
// required too. Tags are accepted and ignored.
//
// Errors: every CUDA/NCCL return code is checked (TT_CUDA/TT_NCCL); waits also poll NCCL's
// asynchronous error state (a peer that died, a network failure) and give up after
// Options::timeout with Errc::Timeout, the communicator then being aborted.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/units.h"
#include "runtime/transport.h"

namespace topotune::rt {

class NcclTransport final : public Transport {
 public:
  struct Options {
    Seconds timeout{300.0};  ///< longest wait for one request before Errc::Timeout
  };

  /// A communicator of `size` ranks; every rank calls this with the same `id` (made by one
  /// rank with ncclGetUniqueId and shared by other means, see nccl_mpi_bootstrap.h) and its
  /// own `rank`, having chosen its `device`. Blocks until all ranks have joined.
  static Expected<std::unique_ptr<NcclTransport>> create(const ncclUniqueId& id, int rank, int size,
                                                         int device, Options options);
  /// A one-rank communicator on `device` (ncclCommInitAll): tests and single-GPU measurement.
  /// Sends to and receives from rank 0 itself are allowed (inside one batch).
  static Expected<std::unique_ptr<NcclTransport>> create_single(int device, Options options);

  ~NcclTransport() override;
  NcclTransport(const NcclTransport&) = delete;
  NcclTransport& operator=(const NcclTransport&) = delete;

  RankId rank() const override { return RankId(rank_); }
  int world_size() const override { return size_; }
  MemoryKind memory_kind() const override { return MemoryKind::Device; }

  [[nodiscard]] Expected<Request> isend(RankId to, ConstBufferView data, Tag tag) override;
  [[nodiscard]] Expected<Request> irecv(RankId from, BufferView data, Tag tag) override;
  [[nodiscard]] Expected<void> wait_all(std::span<Request> requests) override;
  [[nodiscard]] Expected<bool> test(Request& request) override;
  void begin_batch() override;
  [[nodiscard]] Expected<void> end_batch() override;
  /// A one-element ncclAllReduce on every rank, then a wait for the stream.
  [[nodiscard]] Expected<void> barrier() override;

  /// Waits for everything queued on the stream (polling NCCL errors, honouring the timeout).
  [[nodiscard]] Expected<void> synchronize();

  cudaStream_t stream() const { return stream_; }
  ncclComm_t comm() const { return comm_; }
  int device() const { return device_; }

 private:
  // A batch's completion event; shared by the requests of the batch, reused once all are done.
  struct Slot {
    cudaEvent_t event = nullptr;
    int outstanding = 0;
    bool recorded = false;
  };
  // What a Request handle indexes: the batch it belongs to and, for messages, its peer.
  struct Op {
    int slot = -1;
    int peer = -1;
    bool send = false;
  };

  NcclTransport(ncclComm_t comm, int rank, int size, int device, Options options);
  Expected<void> init_stream();
  Expected<Request> post(int peer, const void* data, std::size_t bytes, bool send);
  Expected<int> current_slot();
  Expected<void> wait_event(cudaEvent_t event, const std::string& what);
  void release(Request& request);
  std::string describe(const Op& op) const;

  ncclComm_t comm_ = nullptr;
  int rank_ = 0;
  int size_ = 1;
  int device_ = 0;
  Options options_;
  cudaStream_t stream_ = nullptr;
  void* scratch_ = nullptr;  // 4 device bytes for barrier()
  int depth_ = 0;            // nesting of begin_batch
  int open_slot_ = -1;       // slot of the batch being built, -1 when none
  bool failed_ = false;      // an asynchronous NCCL error was seen: abort, do not finalise
  Expected<void> deferred_;  // an error of begin_batch, reported by end_batch
  std::vector<Slot> slots_;
  std::vector<int> free_slots_;
  std::vector<Op> ops_;
  std::vector<std::int64_t> free_ops_;
};

/// "2.28.3": the NCCL library's version (ncclGetVersion), for the measurement JSON.
std::string nccl_version_string();

}  // namespace topotune::rt
