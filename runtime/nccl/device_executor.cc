#include "runtime/nccl/device_executor.h"

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/local_plan.h"
#include "runtime/nccl/cuda_check.h"
#include "runtime/nccl/device_buffer.h"

namespace topotune::rt {
namespace {

constexpr std::size_t kScratchAlign = 256;  // keeps every scratch slice 16-byte aligned

// The group of every Send/Recv op (-1 for Local and Empty) and the scratch offset of every
// receive that reduces, within its group's scratch; see the file comment of the header.
struct Grouping {
  std::vector<int> group;
  std::vector<std::size_t> scratch_offset;
  std::size_t scratch_bytes = 0;
  int groups = 0;
};

Grouping group_ops(const sched::Schedule& s, const LocalPlan& plan) {
  const std::size_t n = plan.ops.size();
  Grouping g;
  g.group.assign(n, -1);
  g.scratch_offset.assign(n, 0);
  std::vector<int> blocked(n, -1);  // the group an op must not join (it depends on a member)
  int current = -1;
  std::size_t offset = 0;
  auto block_dependents = [&](std::size_t i) {
    for (std::uint32_t d : plan.dependents_of(i)) blocked[d] = current;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const LocalOp& op = plan.ops[i];
    switch (op.kind) {
      case LocalOpKind::Empty:
        // Completes with its dependencies: its dependents inherit a block on the open group.
        if (current >= 0 && blocked[i] == current) block_dependents(i);
        break;
      case LocalOpKind::Local:
        current = -1;
        break;
      case LocalOpKind::Send:
      case LocalOpKind::Recv: {
        if (current < 0 || blocked[i] == current) {
          current = g.groups++;
          offset = 0;
        }
        g.group[i] = current;
        const sched::Transfer& t = s.transfer(op.id);
        if (op.kind == LocalOpKind::Recv && t.reduce) {
          g.scratch_offset[i] = offset;
          const auto size = static_cast<std::size_t>(t.slice.size.value);
          offset += (size + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
          g.scratch_bytes = std::max(g.scratch_bytes, offset);
        }
        block_dependents(i);
        break;
      }
    }
  }
  return g;
}

}  // namespace

struct DeviceExecutor::Plan {
  LocalPlan local;
  Grouping grouping;
  std::vector<DeviceBuffer> servers;  // slot k >= 1 is servers[k - 1]
  DeviceBuffer scratch;
};

namespace {

// One run: queues every op, closing groups as planned.
struct DeviceRun {
  const sched::Schedule& s;
  const LocalPlan& plan;
  const Grouping& grouping;
  std::vector<DeviceBuffer>& servers;
  DeviceBuffer& scratch;
  BufferView rank_buffer;
  NcclTransport& transport;
  CudaReducer& reducer;
  int open = -1;
  std::vector<Request> requests;
  struct Sum {
    BufferView dst;
    ConstBufferView src;
  };
  std::vector<Sum> sums;

  BufferView slice_of(int slot, sched::Slice sl) {
    std::byte* base =
        slot == 0 ? rank_buffer.data : servers[static_cast<std::size_t>(slot - 1)].data();
    return BufferView{base + sl.offset.value, static_cast<std::size_t>(sl.size.value)};
  }

  Expected<void> close_group() {
    if (open < 0) return {};
    open = -1;
    TT_TRY_VOID(transport.end_batch());
    for (const Sum& sum : sums) TT_TRY_VOID(reducer.sum(sum.dst, sum.src, s.spec().dtype));
    sums.clear();
    return {};
  }

  Expected<void> queue(std::size_t i);
  Expected<void> queue_all();
};

Expected<void> DeviceRun::queue(std::size_t i) {
  const LocalOp& op = plan.ops[i];
  const sched::Transfer& t = s.transfer(op.id);
  if (op.kind == LocalOpKind::Empty) return {};
  if (op.kind == LocalOpKind::Local) {
    TT_TRY_VOID(close_group());
    const BufferView dst = slice_of(op.dst_slot, t.slice);
    const BufferView src = slice_of(op.src_slot, t.slice);
    return t.reduce ? reducer.sum(dst, src, s.spec().dtype) : reducer.copy(dst, src);
  }
  if (grouping.group[i] != open) {
    TT_TRY_VOID(close_group());
    transport.begin_batch();
    open = grouping.group[i];
  }
  if (op.kind == LocalOpKind::Send) {
    TT_TRY(Request r, transport.isend(op.peer, slice_of(op.src_slot, t.slice), op.tag));
    requests.push_back(r);
    return {};
  }
  BufferView into = slice_of(op.dst_slot, t.slice);
  if (t.reduce) {
    const BufferView dst = into;
    into.data = scratch.data() + grouping.scratch_offset[i];
    sums.push_back({dst, into});
  }
  TT_TRY(Request r, transport.irecv(op.peer, into, op.tag));
  requests.push_back(r);
  return {};
}

Expected<void> DeviceRun::queue_all() {
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    Expected<void> queued = queue(i);
    if (!queued) {
      if (open >= 0) (void)transport.end_batch();  // leave the transport usable
      const sched::Transfer& t = s.transfer(plan.ops[i].id);
      return std::move(queued).context("transfer " + std::to_string(plan.ops[i].id.value) +
                                       " (endpoint " + std::to_string(t.src.value) + " -> " +
                                       std::to_string(t.dst.value) + ")");
    }
  }
  TT_TRY_VOID(close_group());
  TT_TRY_VOID(transport.wait_all(requests));
  return transport.synchronize();  // the sums after the last group
}

}  // namespace

Expected<std::vector<DeviceQueueEntry>> device_queue(const sched::Schedule& s, RankId me) {
  TT_TRY(LocalPlan plan, make_local_plan(s, me, 32767));
  const Grouping g = group_ops(s, plan);
  std::vector<DeviceQueueEntry> queue;
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const LocalOp& op = plan.ops[i];
    if (op.kind != LocalOpKind::Send && op.kind != LocalOpKind::Recv) continue;
    queue.push_back({op.id, op.peer, op.kind == LocalOpKind::Send, g.group[i]});
  }
  return queue;
}

DeviceExecutor::DeviceExecutor() = default;
DeviceExecutor::~DeviceExecutor() = default;
DeviceExecutor::DeviceExecutor(DeviceExecutor&&) noexcept = default;
DeviceExecutor& DeviceExecutor::operator=(DeviceExecutor&&) noexcept = default;

int DeviceExecutor::groups() const { return plan_ ? plan_->grouping.groups : 0; }

Expected<void> DeviceExecutor::prepare(const sched::Schedule& s, RankId me) {
  if (plan_ && plan_->local.schedule == &s && plan_->local.schedule_size == s.size() &&
      plan_->local.me == me) {
    return {};
  }
  // NCCL ignores tags: any range will do for the plan.
  TT_TRY(LocalPlan local, make_local_plan(s, me, 32767));
  auto plan = std::make_unique<Plan>();
  plan->grouping = group_ops(s, local);
  plan->local = std::move(local);
  const auto bytes = static_cast<std::size_t>(s.spec().bytes.value);
  for (int k = 0; k < plan->local.num_server_buffers; ++k) {
    TT_TRY(DeviceBuffer b, DeviceBuffer::allocate(bytes));
    plan->servers.push_back(std::move(b));
  }
  TT_TRY(plan->scratch, DeviceBuffer::allocate(plan->grouping.scratch_bytes));
  plan_ = std::move(plan);
  return {};
}

Expected<void> DeviceExecutor::run(const sched::Schedule& s, RankId me, BufferView buffer,
                                   NcclTransport& transport, CudaReducer& reducer) {
  TT_TRY_VOID(check_run_arguments(s, buffer, transport.world_size(), "communicator"));
  if (reducer.stream() != transport.stream()) {
    return fail(Errc::InvalidArgument, "the reducer must launch on the transport's stream");
  }
  TT_TRY_VOID(prepare(s, me));
  // A server starts empty in every run, as in the host executor.
  for (DeviceBuffer& server : plan_->servers) {
    TT_CUDA(cudaMemsetAsync(server.data(), 0, server.size(), transport.stream()));
  }
  DeviceRun run{s,
                plan_->local,
                plan_->grouping,
                plan_->servers,
                plan_->scratch,
                buffer,
                transport,
                reducer,
                -1,
                {},
                {}};
  return run.queue_all();
}

}  // namespace topotune::rt
