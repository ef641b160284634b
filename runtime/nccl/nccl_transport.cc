#include "runtime/nccl/nccl_transport.h"

#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "runtime/nccl/cuda_check.h"

namespace topotune::rt {

NcclTransport::NcclTransport(ncclComm_t comm, int rank, int size, int device, Options options)
    : comm_(comm), rank_(rank), size_(size), device_(device), options_(options) {}

Expected<std::unique_ptr<NcclTransport>> NcclTransport::create(const ncclUniqueId& id, int rank,
                                                               int size, int device,
                                                               Options options) {
  if (size < 1 || rank < 0 || rank >= size) {
    return fail(Errc::InvalidArgument, "NCCL rank " + std::to_string(rank) + " of " +
                                           std::to_string(size) + " is out of range");
  }
  TT_CUDA(cudaSetDevice(device));
  ncclComm_t comm = nullptr;
  TT_NCCL(ncclCommInitRank(&comm, size, id, rank));
  std::unique_ptr<NcclTransport> t(new NcclTransport(comm, rank, size, device, options));
  TT_TRY_VOID(t->init_stream());
  return t;
}

Expected<std::unique_ptr<NcclTransport>> NcclTransport::create_single(int device, Options options) {
  TT_CUDA(cudaSetDevice(device));
  ncclComm_t comm = nullptr;
  const int devices[1] = {device};
  TT_NCCL(ncclCommInitAll(&comm, 1, devices));
  std::unique_ptr<NcclTransport> t(new NcclTransport(comm, 0, 1, device, options));
  TT_TRY_VOID(t->init_stream());
  return t;
}

Expected<void> NcclTransport::init_stream() {
  // Non-blocking: the legacy default stream must not serialise NCCL with unrelated work.
  TT_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  TT_CUDA(cudaMalloc(&scratch_, sizeof(float)));
  TT_CUDA(cudaMemsetAsync(scratch_, 0, sizeof(float), stream_));
  return {};
}

NcclTransport::~NcclTransport() {
  // Destructors cannot report: errors here are ignored. After an asynchronous error the
  // communicator may hang in a clean shutdown, hence abort.
  (void)cudaSetDevice(device_);
  if (comm_ != nullptr) {
    if (failed_) {
      (void)ncclCommAbort(comm_);
    } else {
      (void)ncclCommFinalize(comm_);
      (void)ncclCommDestroy(comm_);
    }
  }
  for (Slot& s : slots_) (void)cudaEventDestroy(s.event);
  if (scratch_ != nullptr) (void)cudaFree(scratch_);
  if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
}

void NcclTransport::begin_batch() {
  if (depth_++ > 0) return;  // nested batches join the outer one, as NCCL groups do
  const ncclResult_t rc = ncclGroupStart();
  if (rc != ncclSuccess) deferred_ = Unexpected(nccl_error(rc, "ncclGroupStart"));
}

Expected<int> NcclTransport::current_slot() {
  if (open_slot_ >= 0) return open_slot_;
  if (free_slots_.empty()) {
    Slot s;
    // Timing is not needed: events without it are cheaper to record and query.
    TT_CUDA(cudaEventCreateWithFlags(&s.event, cudaEventDisableTiming));
    slots_.push_back(s);
    free_slots_.push_back(static_cast<int>(slots_.size()) - 1);
  }
  open_slot_ = free_slots_.back();
  free_slots_.pop_back();
  slots_[open_slot_].outstanding = 0;
  slots_[open_slot_].recorded = false;
  return open_slot_;
}

Expected<void> NcclTransport::end_batch() {
  if (depth_ == 0) return fail(Errc::Internal, "end_batch without begin_batch");
  if (--depth_ > 0) return {};
  TT_CUDA(cudaSetDevice(device_));
  const ncclResult_t rc = ncclGroupEnd();
  Expected<void> deferred = std::exchange(deferred_, Expected<void>{});
  if (!deferred) return deferred;
  if (rc != ncclSuccess) return Unexpected(nccl_error(rc, "ncclGroupEnd"));
  if (open_slot_ < 0) return {};  // an empty batch
  Slot& s = slots_[open_slot_];
  open_slot_ = -1;
  TT_CUDA(cudaEventRecord(s.event, stream_));
  s.recorded = true;
  if (s.outstanding == 0) free_slots_.push_back(static_cast<int>(&s - slots_.data()));
  return {};
}

Expected<Request> NcclTransport::post(int peer, const void* data, std::size_t bytes, bool send) {
  if (peer < 0 || peer >= size_) {
    return fail(Errc::InvalidArgument, std::string(send ? "send to" : "receive from") + " rank " +
                                           std::to_string(peer) + " of " + std::to_string(size_));
  }
  TT_CUDA(cudaSetDevice(device_));
  const bool implicit = depth_ == 0;
  if (implicit) begin_batch();
  Expected<int> slot = current_slot();
  // Zero bytes: nothing to move, but the request still completes with its batch.
  if (slot && bytes > 0) {
    const ncclResult_t rc =
        send ? ncclSend(data, bytes, ncclUint8, peer, comm_, stream_)
             : ncclRecv(const_cast<void*>(data), bytes, ncclUint8, peer, comm_, stream_);
    if (rc != ncclSuccess) slot = Unexpected(nccl_error(rc, send ? "ncclSend" : "ncclRecv"));
  }
  if (slot) ++slots_[*slot].outstanding;
  Expected<void> ended = implicit ? end_batch() : Expected<void>{};
  if (!slot) return Unexpected(std::move(slot).error());
  if (!ended) return Unexpected(std::move(ended).error());
  Op op{*slot, peer, send};
  Request r;
  if (free_ops_.empty()) {
    r.handle = static_cast<std::int64_t>(ops_.size());
    ops_.push_back(op);
  } else {
    r.handle = free_ops_.back();
    free_ops_.pop_back();
    ops_[r.handle] = op;
  }
  return r;
}

Expected<Request> NcclTransport::isend(RankId to, ConstBufferView data, Tag /*tag*/) {
  return post(to.value, data.data, data.size, /*send=*/true);
}

Expected<Request> NcclTransport::irecv(RankId from, BufferView data, Tag /*tag*/) {
  return post(from.value, data.data, data.size, /*send=*/false);
}

std::string NcclTransport::describe(const Op& op) const {
  return std::string(op.send ? "send to" : "receive from") + " rank " + std::to_string(op.peer);
}

void NcclTransport::release(Request& request) {
  const int slot = ops_[request.handle].slot;
  if (--slots_[slot].outstanding == 0 && slot != open_slot_) free_slots_.push_back(slot);
  free_ops_.push_back(request.handle);
  request.handle = -1;
}

Expected<void> NcclTransport::wait_event(cudaEvent_t event, const std::string& what) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(options_.timeout.value));
  for (;;) {
    const cudaError_t rc = cudaEventQuery(event);
    if (rc == cudaSuccess) return {};
    if (rc != cudaErrorNotReady) return Unexpected(cuda_error(rc, "cudaEventQuery").context(what));
    ncclResult_t async = ncclSuccess;
    TT_NCCL(ncclCommGetAsyncError(comm_, &async));
    if (async != ncclSuccess) {
      failed_ = true;
      return Unexpected(nccl_error(async, "NCCL asynchronous error").context(what));
    }
    if (Clock::now() > deadline) {
      failed_ = true;
      return fail(Errc::Timeout,
                  what + ": not complete after " + std::to_string(options_.timeout.value) + " s");
    }
    std::this_thread::yield();
  }
}

Expected<void> NcclTransport::wait_all(std::span<Request> requests) {
  TT_CUDA(cudaSetDevice(device_));
  for (Request& r : requests) {
    if (!r.valid()) continue;
    const Op op = ops_[r.handle];
    if (!slots_[op.slot].recorded) {
      return fail(Errc::Internal, "waiting for a " + describe(op) + " before end_batch");
    }
    TT_TRY_VOID(wait_event(slots_[op.slot].event, "waiting for " + describe(op)));
    release(r);
  }
  return {};
}

Expected<bool> NcclTransport::test(Request& request) {
  if (!request.valid()) return fail(Errc::Internal, "test() of an invalid request");
  const Op op = ops_[request.handle];
  if (!slots_[op.slot].recorded) {
    return fail(Errc::Internal, "testing a " + describe(op) + " before end_batch");
  }
  TT_CUDA(cudaSetDevice(device_));
  const cudaError_t rc = cudaEventQuery(slots_[op.slot].event);
  if (rc == cudaErrorNotReady) {
    ncclResult_t async = ncclSuccess;
    TT_NCCL(ncclCommGetAsyncError(comm_, &async));
    if (async != ncclSuccess) {
      failed_ = true;
      return Unexpected(nccl_error(async, "NCCL asynchronous error").context(describe(op)));
    }
    return false;
  }
  if (rc != cudaSuccess) return Unexpected(cuda_error(rc, "cudaEventQuery").context(describe(op)));
  release(request);
  return true;
}

Expected<void> NcclTransport::synchronize() {
  TT_CUDA(cudaSetDevice(device_));
  cudaEvent_t event = nullptr;
  TT_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  Expected<void> done = [&]() -> Expected<void> {
    TT_CUDA(cudaEventRecord(event, stream_));
    return wait_event(event, "synchronising the NCCL stream");
  }();
  (void)cudaEventDestroy(event);
  return done;
}

Expected<void> NcclTransport::barrier() {
  if (depth_ > 0) return fail(Errc::Internal, "barrier() inside a batch");
  TT_CUDA(cudaSetDevice(device_));
  TT_NCCL(ncclAllReduce(scratch_, scratch_, 1, ncclFloat32, ncclSum, comm_, stream_));
  return synchronize().context("NCCL barrier");
}

std::string nccl_version_string() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "unknown";
  // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z since 2.9 (X*1000 + Y*100 + Z before).
  const int major = v >= 10000 ? v / 10000 : v / 1000;
  const int minor = v >= 10000 ? (v / 100) % 100 : (v / 100) % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(v % 100);
}

}  // namespace topotune::rt
