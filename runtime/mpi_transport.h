#pragma once
// MpiTransport: host-memory point-to-point over MPI (Open MPI), for `topotune measure`.
//
// Only MPI_Isend / MPI_Irecv / MPI_Test / MPI_Waitall (and MPI_Barrier for the harness) are
// used: the collective logic is the Schedule's. The communicator is a duplicate of
// MPI_COMM_WORLD with MPI_ERRORS_RETURN, so that a failing peer turns into an Error (via
// TT_MPI, with MPI_Error_string's text) instead of MPI's default abort. Messages are MPI_BYTE;
// a single message is limited to INT_MAX bytes.
//
// MpiSession owns MPI_Init_thread / MPI_Finalize (MPI_THREAD_FUNNELED: only the main thread
// calls MPI; the CLI's watchdog thread never does).

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

#include "runtime/transport.h"

namespace topotune::rt {

/// The MPI error `code` as an Error with MPI_Error_string's text, prefixed by `call`.
Error mpi_error(int code, const char* call);

/// Evaluates an MPI call; on failure returns an Error naming the call and MPI's message.
#define TT_MPI(expr)                                                               \
  do {                                                                             \
    const int tt_mpi_rc_ = (expr);                                                 \
    if (tt_mpi_rc_ != 0)                                                           \
      return ::topotune::Unexpected(::topotune::rt::mpi_error(tt_mpi_rc_, #expr)); \
  } while (0)

/// MPI_Init_thread on construction (via start()), MPI_Finalize on destruction.
class MpiSession {
 public:
  /// Initialises MPI (once per process).
  static Expected<MpiSession> start(int* argc, char*** argv);
  MpiSession(MpiSession&& other) noexcept : active_(other.active_) { other.active_ = false; }
  MpiSession& operator=(MpiSession&&) = delete;
  ~MpiSession();
  int rank() const;
  int size() const;
  /// Host name as MPI reports it (the emulated host under `topotune emulate`).
  std::string processor_name() const;

 private:
  MpiSession() = default;
  bool active_ = false;
};

/// Point-to-point transport on a duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN.
class MpiTransport final : public Transport {
 public:
  /// Needs an active MpiSession.
  static Expected<MpiTransport> create();
  MpiTransport(MpiTransport&& other) noexcept;
  MpiTransport& operator=(MpiTransport&&) = delete;
  ~MpiTransport() override;

  RankId rank() const override { return RankId(rank_); }
  int world_size() const override { return size_; }
  MemoryKind memory_kind() const override { return MemoryKind::Host; }
  [[nodiscard]] Expected<Request> isend(RankId to, ConstBufferView data, Tag tag) override;
  [[nodiscard]] Expected<Request> irecv(RankId from, BufferView data, Tag tag) override;
  [[nodiscard]] Expected<void> wait_all(std::span<Request> requests) override;
  [[nodiscard]] Expected<bool> test(Request& request) override;
  [[nodiscard]] Expected<void> barrier() override;
  Tag max_tag() const override { return max_tag_; }

  /// The library's own allreduce (sum, in place) on this communicator: the `mpi` baseline of
  /// `topotune measure`. fp16/bf16 use a user-defined MPI_Op summing through float.
  [[nodiscard]] Expected<void> allreduce(BufferView data, sched::DataType dtype);
  /// The library's reduce-scatter (sum) on the whole buffer `data`: this rank's block
  /// (sched::block) ends up reduced in place, at its own offset, as topotune's schedules leave
  /// it. MPI_Reduce_scatter in place leaves it at the start of the buffer, so it is moved
  /// there (a copy of one block, inside the call).
  [[nodiscard]] Expected<void> reduce_scatter(BufferView data, sched::DataType dtype);
  /// The library's allgather in place (MPI_Allgatherv, sched::block's blocks): every rank's
  /// block of `data` ends up in every rank's buffer.
  [[nodiscard]] Expected<void> allgather(BufferView data, sched::DataType dtype);
  /// Max of one value over all ranks (timing: an iteration lasts as long as its slowest rank).
  [[nodiscard]] Expected<double> max_over_ranks(double value);
  /// Sum of one value over all ranks (collective).
  [[nodiscard]] Expected<double> sum_over_ranks(double value);
  /// Every rank's MPI_Get_processor_name, indexed by rank (collective).
  [[nodiscard]] Expected<std::vector<std::string>> processor_names();

 private:
  MpiTransport() = default;
  Request store(MPI_Request request);
  void release(Request& request);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  Tag max_tag_ = 32767;
  std::vector<MPI_Request> requests_;  // Request::handle indexes this
  std::vector<std::int64_t> free_;
  /// The MPI type and sum of `dtype`: MPI_FLOAT and MPI_SUM, or 16-bit words and a
  /// user-defined sum through float (created on first use).
  Expected<std::pair<MPI_Datatype, MPI_Op>> sum_of(sched::DataType dtype);

  MPI_Op f16_op_ = MPI_OP_NULL;  // user-defined sums for fp16 / bf16 (created lazily)
  MPI_Op bf16_op_ = MPI_OP_NULL;
};

}  // namespace topotune::rt
