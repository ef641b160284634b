#pragma once
// LoopbackTransport: every rank is a thread of one process (gloo's `spawn` for tests).
//
// A LoopbackWorld owns the shared state: a mailbox per (src, dst, tag) holding the posted but
// unmatched sends and receives in posting order (MPI's non-overtaking rule), one mutex and one
// condition variable. A send and a receive match when both are posted; the thread that posts
// the second one copies the bytes and marks both complete, so nothing depends on the other
// thread running. Sizes must agree exactly, else both requests fail (a schedule bug).
// The world can be poisoned (abort()): every blocked or later call then fails with
// Errc::Transport, which tests use to check that a failing rank does not hang the others.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/transport.h"

namespace topotune::rt {

class LoopbackTransport;

/// Shared state of `size` ranks; create the per-rank transports with transport(r).
class LoopbackWorld {
 public:
  /// `max_tag` bounds the tags (tests shrink it to force tag reuse).
  explicit LoopbackWorld(int size, Tag max_tag = 0x7fffffff);
  ~LoopbackWorld();
  LoopbackWorld(const LoopbackWorld&) = delete;
  LoopbackWorld& operator=(const LoopbackWorld&) = delete;

  int size() const { return size_; }
  Tag max_tag() const { return max_tag_; }
  /// The transport of rank `r`; owned by the world, valid while it lives. Not thread-safe
  /// itself: each rank's thread uses only its own.
  LoopbackTransport& transport(RankId r);
  /// Fails every pending and later operation with `why` (a rank gave up).
  void abort(const std::string& why);

 private:
  friend class LoopbackTransport;
  struct Op {
    std::byte* recv_data = nullptr;        // receive: destination
    const std::byte* send_data = nullptr;  // send: source
    std::size_t size = 0;
    bool done = false;
    std::string error;  // non-empty: failed
  };
  using Key = std::tuple<int, int, Tag>;  // src, dst, tag
  struct Mailbox {
    std::deque<std::shared_ptr<Op>> sends;
    std::deque<std::shared_ptr<Op>> recvs;
  };
  void post(const Key& key, std::shared_ptr<Op> op, bool is_send);
  void match_locked(Mailbox& box);
  void wait_done(const std::shared_ptr<Op>& op);
  std::string barrier_wait();

  int size_;
  Tag max_tag_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<Key, Mailbox> boxes_;
  std::string abort_reason_;
  int barrier_count_ = 0;
  std::uint64_t barrier_generation_ = 0;
  std::vector<std::unique_ptr<LoopbackTransport>> transports_;
};

/// One rank's view of a LoopbackWorld.
class LoopbackTransport final : public Transport {
 public:
  LoopbackTransport(LoopbackWorld& world, RankId rank) : world_(world), rank_(rank) {}

  RankId rank() const override { return rank_; }
  int world_size() const override { return world_.size(); }
  MemoryKind memory_kind() const override { return MemoryKind::Host; }
  [[nodiscard]] Expected<Request> isend(RankId to, ConstBufferView data, Tag tag) override;
  [[nodiscard]] Expected<Request> irecv(RankId from, BufferView data, Tag tag) override;
  [[nodiscard]] Expected<void> wait_all(std::span<Request> requests) override;
  [[nodiscard]] Expected<bool> test(Request& request) override;
  [[nodiscard]] Expected<void> barrier() override;
  Tag max_tag() const override { return world_.max_tag(); }

 private:
  Expected<Request> add(std::shared_ptr<LoopbackWorld::Op> op);
  Expected<void> finish(Request& request);

  LoopbackWorld& world_;
  RankId rank_;
  std::vector<std::shared_ptr<LoopbackWorld::Op>> ops_;  // Request::handle indexes this
  std::vector<std::int64_t> free_;
};

}  // namespace topotune::rt
