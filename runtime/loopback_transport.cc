#include "runtime/loopback_transport.h"

#include <cstring>

#include "core/assert.h"

namespace topotune::rt {

LoopbackWorld::LoopbackWorld(int size, Tag max_tag) : size_(size), max_tag_(max_tag) {
  TT_ASSERT(size >= 1, "loopback world of %d ranks", size);
  for (int r = 0; r < size; ++r) {
    transports_.push_back(std::make_unique<LoopbackTransport>(*this, RankId(r)));
  }
}

LoopbackWorld::~LoopbackWorld() = default;

LoopbackTransport& LoopbackWorld::transport(RankId r) {
  TT_ASSERT(r.valid() && r.value < size_, "rank %d out of range", r.value);
  return *transports_[r.index()];
}

void LoopbackWorld::abort(const std::string& why) {
  std::lock_guard lock(mutex_);
  if (abort_reason_.empty()) abort_reason_ = why.empty() ? "aborted" : why;
  // Every operation still queued fails now and is never matched: its rank stops waiting for
  // it and may free the buffer it names while another rank is still posting.
  for (auto& [key, box] : boxes_) {
    for (auto* queue : {&box.sends, &box.recvs}) {
      for (const std::shared_ptr<Op>& op : *queue) {
        op->error = "loopback world aborted: " + abort_reason_;
        op->done = true;
      }
      queue->clear();
    }
  }
  cv_.notify_all();
}

void LoopbackWorld::post(const Key& key, std::shared_ptr<Op> op, bool is_send) {
  std::lock_guard lock(mutex_);
  if (!abort_reason_.empty()) {  // matched with nothing: the peer's buffer may be gone
    op->error = "loopback world aborted: " + abort_reason_;
    op->done = true;
    return;
  }
  Mailbox& box = boxes_[key];
  (is_send ? box.sends : box.recvs).push_back(std::move(op));
  match_locked(box);
}

// Pairs the oldest send with the oldest receive of one (src, dst, tag): the non-overtaking
// order that MPI guarantees and that the executor relies on.
void LoopbackWorld::match_locked(Mailbox& box) {
  bool matched = false;
  while (!box.sends.empty() && !box.recvs.empty()) {
    std::shared_ptr<Op> s = std::move(box.sends.front());
    std::shared_ptr<Op> r = std::move(box.recvs.front());
    box.sends.pop_front();
    box.recvs.pop_front();
    if (s->size != r->size) {
      const std::string why = "message size mismatch: sent " + std::to_string(s->size) +
                              " bytes, receive expects " + std::to_string(r->size);
      s->error = why;
      r->error = why;
    } else if (s->size > 0) {
      std::memcpy(r->recv_data, s->send_data, s->size);
    }
    s->done = true;
    r->done = true;
    matched = true;
  }
  if (matched) cv_.notify_all();
}

void LoopbackWorld::wait_done(const std::shared_ptr<Op>& op) {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return op->done || !abort_reason_.empty(); });
  if (!op->done) {
    op->error = "loopback world aborted: " + abort_reason_;
    op->done = true;
  }
}

std::string LoopbackWorld::barrier_wait() {
  std::unique_lock lock(mutex_);
  const std::uint64_t generation = barrier_generation_;
  if (++barrier_count_ == size_) {
    barrier_count_ = 0;
    ++barrier_generation_;
    cv_.notify_all();
    return {};
  }
  cv_.wait(lock, [&] { return barrier_generation_ != generation || !abort_reason_.empty(); });
  if (barrier_generation_ != generation) return {};
  return "loopback world aborted: " + abort_reason_;
}

Expected<Request> LoopbackTransport::add(std::shared_ptr<LoopbackWorld::Op> op) {
  std::int64_t handle;
  if (!free_.empty()) {
    handle = free_.back();
    free_.pop_back();
    ops_[static_cast<std::size_t>(handle)] = std::move(op);
  } else {
    handle = static_cast<std::int64_t>(ops_.size());
    ops_.push_back(std::move(op));
  }
  return Request{handle};
}

Expected<Request> LoopbackTransport::isend(RankId to, ConstBufferView data, Tag tag) {
  if (!to.valid() || to.value >= world_.size()) {
    return fail(Errc::Transport, "send to rank " + std::to_string(to.value) + ": no such rank");
  }
  if (tag < 0 || tag > world_.max_tag()) return fail(Errc::Transport, "tag out of range");
  auto op = std::make_shared<LoopbackWorld::Op>();
  op->send_data = data.data;
  op->size = data.size;
  TT_TRY(Request req, add(op));
  world_.post({rank_.value, to.value, tag}, std::move(op), /*is_send=*/true);
  return req;
}

Expected<Request> LoopbackTransport::irecv(RankId from, BufferView data, Tag tag) {
  if (!from.valid() || from.value >= world_.size()) {
    return fail(Errc::Transport,
                "receive from rank " + std::to_string(from.value) + ": no such rank");
  }
  if (tag < 0 || tag > world_.max_tag()) return fail(Errc::Transport, "tag out of range");
  auto op = std::make_shared<LoopbackWorld::Op>();
  op->recv_data = data.data;
  op->size = data.size;
  TT_TRY(Request req, add(op));
  world_.post({from.value, rank_.value, tag}, std::move(op), /*is_send=*/false);
  return req;
}

Expected<void> LoopbackTransport::finish(Request& request) {
  const auto i = static_cast<std::size_t>(request.handle);
  std::string error = std::move(ops_[i]->error);
  ops_[i].reset();
  free_.push_back(request.handle);
  request.handle = -1;
  if (!error.empty())
    return fail(Errc::Transport, "rank " + std::to_string(rank_.value) + ": " + error);
  return {};
}

Expected<bool> LoopbackTransport::test(Request& request) {
  TT_ASSERT(request.valid() && static_cast<std::size_t>(request.handle) < ops_.size() &&
                ops_[static_cast<std::size_t>(request.handle)],
            "test() of an invalid request");
  {
    std::lock_guard lock(world_.mutex_);
    const auto& op = ops_[static_cast<std::size_t>(request.handle)];
    if (!op->done && !world_.abort_reason_.empty()) {
      op->error = "loopback world aborted: " + world_.abort_reason_;
      op->done = true;
    }
    if (!op->done) return false;
  }
  TT_TRY_VOID(finish(request));
  return true;
}

Expected<void> LoopbackTransport::wait_all(std::span<Request> requests) {
  Expected<void> first_error;
  for (Request& r : requests) {
    if (!r.valid()) continue;
    world_.wait_done(ops_[static_cast<std::size_t>(r.handle)]);
    Expected<void> done = finish(r);
    if (!done && first_error) first_error = std::move(done);
  }
  return first_error;
}

Expected<void> LoopbackTransport::barrier() {
  std::string error = world_.barrier_wait();
  if (!error.empty()) return fail(Errc::Transport, error);
  return {};
}

}  // namespace topotune::rt
