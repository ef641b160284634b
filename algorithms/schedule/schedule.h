#pragma once
// The Schedule IR: the contract between algorithms, simulator and runtime.
//
// A Schedule is a DAG of point-to-point transfers between endpoints. Endpoints 0..ranks-1 are
// the ranks of the collective; extra endpoints (after them) are parties that are not ranks,
// such as a parameter server on a host's CPU, each executed by the process of one rank.
// Every endpoint holds a copy of the logical buffer [0, spec.bytes); a transfer moves one slice
// of it from src's copy to the same slice of dst's copy, either overwriting it (copy) or adding
// into it (reduce). Several reduce transfers into the same slice may run concurrently: that is
// how a server or node leader sums several inputs (sum is commutative); the receiver pays the
// reduction. Ranks start with their own input (allreduce, reduce-scatter), their own block
// (allgather) or nothing but the root (broadcast); extra endpoints start empty.
//
// Dependencies point backwards (a transfer may depend only on transfers added before it), so a
// Schedule is a DAG by construction and transfer order is a valid execution order. A transfer
// may start when all its dependencies are complete, i.e. delivered and, for reduce, reduced.
//
// Storage is flat (32 bytes a transfer, dependencies in one CSR array) because the tuner and
// the simulator handle schedules of millions of transfers (1024 ranks x 8 channels of ring).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "algorithms/schedule/collective_spec.h"
#include "algorithms/schedule/uninit_allocator.h"
#include "core/expected.h"
#include "core/strong_id.h"

namespace topotune::sched {

enum class EndpointKind : std::uint8_t { Rank, HostCpu };

/// A party of the schedule. For a rank, `host` is unknown (-1) to the schedule: the topology
/// maps ranks to GPUs. A HostCpu endpoint is the CPU (host memory) of machine `host`, run by
/// the process of rank `executor` (a rank on that host).
struct Endpoint {
  EndpointKind kind = EndpointKind::Rank;
  int host = -1;
  RankId executor{};
};

/// One point-to-point movement of a slice. The send/recv pair is derived from it, never authored.
struct Transfer {
  EndpointId src;
  EndpointId dst;
  Slice slice;
  std::uint32_t dep_end = 0;  ///< one past this transfer's last entry in the CSR deps array
  std::int16_t channel = 0;   ///< independent pipeline (ring/tree) it belongs to: a route hint
  bool reduce = false;        ///< dst adds the slice into its copy instead of overwriting it
};
static_assert(sizeof(Transfer) <= 40);

/// An immutable, validated DAG of transfers. Built only by ScheduleBuilder or from JSON.
class Schedule {
 public:
  const CollectiveSpec& spec() const { return spec_; }
  /// What produced it, e.g. "ring(channels=2,chunks=4)"; informational.
  const std::string& algorithm() const { return algorithm_; }

  int num_ranks() const { return spec_.ranks; }
  int num_endpoints() const { return spec_.ranks + static_cast<int>(extra_.size()); }
  /// Endpoints >= ranks are extra endpoints (CPU servers).
  Endpoint endpoint(EndpointId id) const;

  std::size_t size() const { return transfers_.size(); }
  std::span<const Transfer> transfers() const { return transfers_; }
  const Transfer& transfer(TransferId id) const { return transfers_[id.index()]; }
  /// The transfers `id` waits for; all have smaller ids.
  std::span<const TransferId> deps(TransferId id) const;
  std::size_t num_deps() const { return deps_.size(); }

 private:
  friend class ScheduleBuilder;
  friend class ScheduleJson;
  CollectiveSpec spec_;
  std::string algorithm_;
  std::vector<Endpoint> extra_;
  // Uninitialising allocators: the builder resizes and then writes each element once.
  std::vector<Transfer, UninitAllocator<Transfer>> transfers_;
  std::vector<TransferId, UninitAllocator<TransferId>> deps_;
};

class TransferWriter;

/// Builds a Schedule. Misuse by an algorithm (a dependency on a transfer not yet added, an
/// endpoint that does not exist, a channel outside 0..32767) is a bug and asserts; build()
/// then validates the rest.
class ScheduleBuilder {
 public:
  ScheduleBuilder(CollectiveSpec spec, std::string algorithm);

  /// Adds a CPU endpoint on machine `host`, run by rank `executor`'s process.
  EndpointId add_host_cpu(int host, RankId executor);

  /// Makes room for `transfers` transfers and `deps` dependencies in all, so that adding them
  /// never moves the arrays (generators know their counts: give them exactly).
  void reserve(std::size_t transfers, std::size_t deps);

  /// Bulk path for hot loops: room for at most `transfers` more transfers with `deps`
  /// dependencies in all, written through the returned writer (transfer_writer.h). Until the
  /// writer finishes, add() and another write() are bugs, and size() counts that room.
  [[nodiscard]] TransferWriter write(std::size_t transfers, std::size_t deps);

  TransferId add(EndpointId src, EndpointId dst, Slice slice, bool reduce,
                 std::span<const TransferId> deps = {}, int channel = 0);
  TransferId add(RankId src, RankId dst, Slice slice, bool reduce,
                 std::span<const TransferId> deps = {}, int channel = 0) {
    return add(EndpointId(src.value), EndpointId(dst.value), slice, reduce, deps, channel);
  }
  /// Convenience for the common single-dependency case (`dep` may be invalid: no dependency).
  TransferId add(EndpointId src, EndpointId dst, Slice slice, bool reduce, TransferId dep,
                 int channel = 0);

  std::size_t size() const { return s_.transfers_.size(); }
  const CollectiveSpec& spec() const { return s_.spec_; }

  /// Finishes the schedule: validate()'s result, ranges, endpoints and channels. The rules of
  /// single transfers were checked as they were added (transfer_breaks_rules), so the
  /// transfers are reread (validate()) only to name the first broken one.
  Expected<Schedule> build() &&;

 private:
  friend class TransferWriter;
  /// Called by the writer when it finishes: keeps its first `transfers` / `deps`.
  void end_write(std::size_t transfers, std::size_t deps, bool broken);

  Schedule s_;
  std::int64_t elem_mask_ = 0;  ///< element size - 1 (element sizes are powers of two)
  bool broken_ = false;         ///< some transfer breaks validate()'s rules: build() rereads
  bool writing_ = false;        ///< a TransferWriter is open
};

/// Rank id as endpoint id.
inline EndpointId endpoint_of(RankId r) { return EndpointId(r.value); }

}  // namespace topotune::sched
