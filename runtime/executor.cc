#include "runtime/executor.h"

#include <cstring>
#include <string>
#include <thread>
#include <utility>

#include "runtime/local_plan.h"

namespace topotune::rt {

namespace {

// Receive buffers for reduce transfers, reused across runs so that timed iterations do not
// allocate. A buffer is handed out whole; sizes repeat from run to run.
class ScratchPool {
 public:
  int acquire(std::size_t size) {
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      if (!in_use_[i] && buffers_[i].size() >= size) {
        in_use_[i] = true;
        return static_cast<int>(i);
      }
    }
    buffers_.emplace_back(size);
    in_use_.push_back(true);
    return static_cast<int>(buffers_.size() - 1);
  }
  std::byte* data(int i) { return buffers_[static_cast<std::size_t>(i)].data(); }
  void release(int i) { in_use_[static_cast<std::size_t>(i)] = false; }
  void release_all() { in_use_.assign(in_use_.size(), false); }

 private:
  std::vector<std::vector<std::byte>> buffers_;
  std::vector<bool> in_use_;
};

}  // namespace

struct Executor::Plan {
  LocalPlan local;
  std::vector<std::vector<std::byte>> servers;  // slot k >= 1 is servers[k - 1]
  ScratchPool scratch;
};

namespace {

// State of one run of a plan.
struct RunState {
  const sched::Schedule& s;
  LocalPlan& plan;
  std::vector<std::vector<std::byte>>& servers;
  ScratchPool& scratch;
  BufferView rank_buffer;
  Transport& transport;
  Reducer& reducer;
  std::vector<std::uint32_t> pending;  // unfinished dependencies per op
  std::vector<std::uint32_t> ready;    // ops to post
  struct InFlight {
    Request request;
    std::uint32_t op;
    int scratch = -1;
  };
  std::vector<InFlight> in_flight;
  std::size_t done = 0;

  BufferView slice_of(int slot, sched::Slice sl) {
    std::byte* base =
        slot == 0 ? rank_buffer.data : servers[static_cast<std::size_t>(slot - 1)].data();
    return BufferView{base + sl.offset.value, static_cast<std::size_t>(sl.size.value)};
  }

  std::string describe(const LocalOp& op) const {
    const sched::Transfer& t = s.transfer(op.id);
    return "transfer " + std::to_string(op.id.value) + " (endpoint " + std::to_string(t.src.value) +
           " -> " + std::to_string(t.dst.value) + ")";
  }

  void complete(std::uint32_t i) {
    ++done;
    for (std::uint32_t d : plan.dependents_of(i)) {
      if (--pending[d] == 0) ready.push_back(d);
    }
  }

  Expected<void> post(std::uint32_t i);
  Expected<void> post_ready();
  Expected<bool> poll();
};

Expected<void> RunState::post(std::uint32_t i) {
  const LocalOp& op = plan.ops[i];
  const sched::Transfer& t = s.transfer(op.id);
  switch (op.kind) {
    case LocalOpKind::Empty:
      complete(i);
      return {};
    case LocalOpKind::Local: {
      const BufferView dst = slice_of(op.dst_slot, t.slice);
      const BufferView src = slice_of(op.src_slot, t.slice);
      if (t.reduce) {
        TT_TRY_VOID(reducer.sum(dst, src, s.spec().dtype).context(describe(op)));
      } else {
        std::memcpy(dst.data, src.data, dst.size);
      }
      complete(i);
      return {};
    }
    case LocalOpKind::Send: {
      TT_TRY(
          Request r,
          transport.isend(op.peer, slice_of(op.src_slot, t.slice), op.tag).context(describe(op)));
      in_flight.push_back({r, i, -1});
      return {};
    }
    case LocalOpKind::Recv: {
      BufferView into = slice_of(op.dst_slot, t.slice);
      int buf = -1;
      if (t.reduce) {
        buf = scratch.acquire(into.size);
        into.data = scratch.data(buf);
      }
      TT_TRY(Request r, transport.irecv(op.peer, into, op.tag).context(describe(op)));
      in_flight.push_back({r, i, buf});
      return {};
    }
  }
  return {};
}

Expected<void> RunState::post_ready() {
  if (ready.empty()) return {};
  transport.begin_batch();
  // Local and empty ops complete inside post() and may make more ops ready: drain fully.
  while (!ready.empty()) {
    const std::uint32_t i = ready.back();
    ready.pop_back();
    TT_TRY_VOID(post(i));
  }
  return transport.end_batch();
}

// One pass over the outstanding requests; true if any completed.
Expected<bool> RunState::poll() {
  bool progressed = false;
  for (std::size_t k = 0; k < in_flight.size();) {
    InFlight f = in_flight[k];
    const LocalOp& op = plan.ops[f.op];
    TT_TRY(bool finished, transport.test(f.request).context(describe(op)));
    if (!finished) {
      ++k;
      continue;
    }
    in_flight[k] = in_flight.back();
    in_flight.pop_back();
    if (f.scratch >= 0) {
      const sched::Transfer& t = s.transfer(op.id);
      const BufferView dst = slice_of(op.dst_slot, t.slice);
      const ConstBufferView src(scratch.data(f.scratch), dst.size);
      TT_TRY_VOID(reducer.sum(dst, src, s.spec().dtype).context(describe(op)));
      scratch.release(f.scratch);
    }
    complete(f.op);
    progressed = true;
  }
  return progressed;
}

}  // namespace

Executor::Executor() = default;
Executor::~Executor() = default;
Executor::Executor(Executor&&) noexcept = default;
Executor& Executor::operator=(Executor&&) noexcept = default;

std::size_t Executor::local_transfers() const { return plan_ ? plan_->local.ops.size() : 0; }

Expected<void> Executor::prepare(const sched::Schedule& s, RankId me, Tag max_tag) {
  if (plan_ && plan_->local.schedule == &s && plan_->local.schedule_size == s.size() &&
      plan_->local.me == me) {
    return {};
  }
  TT_TRY(LocalPlan local, make_local_plan(s, me, max_tag));
  auto plan = std::make_unique<Plan>();
  plan->local = std::move(local);
  plan->servers.assign(static_cast<std::size_t>(plan->local.num_server_buffers),
                       std::vector<std::byte>(static_cast<std::size_t>(s.spec().bytes.value)));
  plan_ = std::move(plan);
  return {};
}

Expected<void> Executor::run(const sched::Schedule& s, RankId me, BufferView buffer,
                             Transport& transport, Reducer& reducer) {
  TT_TRY_VOID(check_run_arguments(s, buffer, transport.world_size(), "transport"));
  TT_TRY_VOID(prepare(s, me, transport.max_tag()));
  for (auto& server : plan_->servers) std::memset(server.data(), 0, server.size());
  plan_->scratch.release_all();
  RunState st{
      s, plan_->local, plan_->servers, plan_->scratch, buffer, transport, reducer, {}, {}, {}, 0};
  const std::size_t n = st.plan.ops.size();
  st.pending.resize(n);
  // ready is a stack: pushed from the highest id down, so the lowest ids are posted first.
  for (std::size_t i = n; i-- > 0;) {
    st.pending[i] = st.plan.ops[i].num_deps;
    if (st.pending[i] == 0) st.ready.push_back(static_cast<std::uint32_t>(i));
  }
  while (st.done < n) {
    TT_TRY_VOID(st.post_ready());
    if (st.done == n) break;
    if (st.in_flight.empty()) {
      return fail(Errc::Internal, "executor stalled with " + std::to_string(n - st.done) +
                                      " transfers left (inconsistent plan)");
    }
    TT_TRY(bool progressed, st.poll());
    if (!progressed) std::this_thread::yield();
  }
  return {};
}

}  // namespace topotune::rt
