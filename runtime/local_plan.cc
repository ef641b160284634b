#include "runtime/local_plan.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace topotune::rt {
namespace {

constexpr std::uint32_t kNotLocal = UINT32_MAX;

// Per endpoint: the owned buffer slot (0 = the rank's own copy, k >= 1 = k-th owned server),
// or -1 when another process owns it.
std::vector<int> owned_slots(const sched::Schedule& s, RankId me, int& servers) {
  std::vector<int> slot(static_cast<std::size_t>(s.num_endpoints()), -1);
  slot[me.index()] = 0;
  servers = 0;
  for (int e = s.num_ranks(); e < s.num_endpoints(); ++e) {
    if (owner_of(s, EndpointId(e)) == me) slot[static_cast<std::size_t>(e)] = ++servers;
  }
  return slot;
}

LocalOp classify(const sched::Schedule& s, const sched::Transfer& t, TransferId id,
                 const std::vector<int>& slot, Tag tag_range) {
  LocalOp op;
  op.id = id;
  op.src_slot = slot[t.src.index()];
  op.dst_slot = slot[t.dst.index()];
  op.tag = static_cast<Tag>(id.value % tag_range);
  if (t.slice.empty()) {
    op.kind = LocalOpKind::Empty;
  } else if (op.src_slot >= 0 && op.dst_slot >= 0) {
    op.kind = LocalOpKind::Local;
  } else if (op.src_slot >= 0) {
    op.kind = LocalOpKind::Send;
    op.peer = owner_of(s, t.dst);
  } else {
    op.kind = LocalOpKind::Recv;
    op.peer = owner_of(s, t.src);
  }
  return op;
}

void sort_unique(std::vector<std::uint32_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// The local ops transfer `id` depends on, directly or through non-local transfers.
std::vector<std::uint32_t> project(const sched::Schedule& s, TransferId id,
                                   const std::vector<std::uint32_t>& local_index,
                                   const std::vector<std::vector<std::uint32_t>>& reach) {
  std::vector<std::uint32_t> proj;
  for (TransferId d : s.deps(id)) {
    const std::uint32_t li = local_index[d.index()];
    if (li != kNotLocal) {
      proj.push_back(li);
    } else {
      proj.insert(proj.end(), reach[d.index()].begin(), reach[d.index()].end());
    }
  }
  sort_unique(proj);
  return proj;
}

// Inverts the per-op dependency lists into the plan's dependents CSR.
void build_dependents(LocalPlan& plan, const std::vector<std::vector<std::uint32_t>>& deps_of_op) {
  std::vector<std::uint32_t> count(plan.ops.size(), 0);
  for (const auto& deps : deps_of_op) {
    for (std::uint32_t d : deps) ++count[d];
  }
  plan.dependents_end.resize(plan.ops.size());
  std::uint32_t end = 0;
  for (std::size_t i = 0; i < count.size(); ++i) plan.dependents_end[i] = end += count[i];
  plan.dependents.resize(end);
  std::vector<std::uint32_t> fill(plan.ops.size(), 0);
  for (std::size_t i = 0; i < deps_of_op.size(); ++i) {
    for (std::uint32_t d : deps_of_op[i]) {
      const std::uint32_t b = d == 0 ? 0 : plan.dependents_end[d - 1];
      plan.dependents[b + fill[d]++] = static_cast<std::uint32_t>(i);
    }
  }
}

}  // namespace

RankId owner_of(const sched::Schedule& s, EndpointId e) {
  if (e.value < s.num_ranks()) return RankId(e.value);
  return s.endpoint(e).executor;
}

Expected<void> check_run_arguments(const sched::Schedule& s, const BufferView& buffer,
                                   int world_size, const char* transport_kind) {
  if (buffer.size != static_cast<std::size_t>(s.spec().bytes.value)) {
    return fail(Errc::InvalidArgument, "buffer of " + std::to_string(buffer.size) +
                                           " bytes for a schedule of " +
                                           std::to_string(s.spec().bytes.value));
  }
  if (world_size != s.num_ranks()) {
    return fail(Errc::InvalidArgument, "schedule for " + std::to_string(s.num_ranks()) +
                                           " ranks on a " + transport_kind + " of " +
                                           std::to_string(world_size));
  }
  return {};
}

Expected<LocalPlan> make_local_plan(const sched::Schedule& s, RankId me, Tag max_tag) {
  if (!me.valid() || me.value >= s.num_ranks()) {
    return fail(Errc::InvalidArgument, "rank " + std::to_string(me.value) + " is not a rank of a " +
                                           std::to_string(s.num_ranks()) + "-rank schedule");
  }
  const Tag tag_range = max_tag - kReservedTags + 1;
  if (tag_range < 1) return fail(Errc::Internal, "transport tag range too small");
  LocalPlan plan;
  plan.schedule = &s;
  plan.schedule_size = s.size();
  plan.me = me;
  const std::vector<int> slot = owned_slots(s, me, plan.num_server_buffers);

  // local_index[i]: index into plan.ops, or kNotLocal. reach[i] (non-local i only): the local
  // ops that transfer i depends on through non-local transfers (the projection of executor.h).
  std::vector<std::uint32_t> local_index(s.size(), kNotLocal);
  std::vector<std::vector<std::uint32_t>> reach(s.size());
  std::vector<std::vector<std::uint32_t>> deps_of_op;
  // Last op per (peer, is_send, tag): same-tag messages to one peer go strictly in id order.
  std::map<std::tuple<int, bool, Tag>, std::uint32_t> last_same_tag;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const TransferId id(static_cast<std::int32_t>(i));
    const sched::Transfer& t = s.transfer(id);
    std::vector<std::uint32_t> proj = project(s, id, local_index, reach);
    const bool local = slot[t.src.index()] >= 0 || slot[t.dst.index()] >= 0;
    if (!local) {
      reach[i] = std::move(proj);
      continue;
    }
    const LocalOp op = classify(s, t, id, slot, tag_range);
    const auto index = static_cast<std::uint32_t>(plan.ops.size());
    if (op.kind == LocalOpKind::Send || op.kind == LocalOpKind::Recv) {
      auto key = std::make_tuple(op.peer.value, op.kind == LocalOpKind::Send, op.tag);
      auto [it, inserted] = last_same_tag.try_emplace(key, index);
      if (!inserted) {
        proj.push_back(it->second);
        sort_unique(proj);
        it->second = index;
      }
    }
    local_index[i] = index;
    plan.ops.push_back(op);
    plan.ops.back().num_deps = static_cast<std::uint32_t>(proj.size());
    deps_of_op.push_back(std::move(proj));
  }

  build_dependents(plan, deps_of_op);
  return plan;
}

}  // namespace topotune::rt
