#include "simulator/flow_engine.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/assert.h"
#include "core/memory_budget.h"

namespace topotune::sim {
FlowEngine::FlowEngine(const NetworkModel& network, const SimOptions& options,
                       const sched::Schedule& schedule)
    : network_(network), routes_(network), options_(options), schedule_(schedule) {}

Expected<void> FlowEngine::map_endpoints() {
  const int n = schedule_.num_endpoints();
  device_.resize(static_cast<std::size_t>(n));
  for (int e = 0; e < n; ++e) {
    const EndpointId id(e);
    auto device = network_.device_of(schedule_.endpoint(id), id);
    if (!device) return Unexpected(std::move(device).error().context(first_use(id)));
    TT_ASSERT(device->valid() && device->index() < network_.num_devices(),
              "network mapped endpoint %d to bad device %d", e, device->value);
    device_[static_cast<std::size_t>(e)] = *device;
  }
  return {};
}

std::string FlowEngine::first_use(EndpointId id) const {
  const auto transfers = schedule_.transfers();
  for (std::size_t t = 0; t < transfers.size(); ++t) {
    if (transfers[t].src == id || transfers[t].dst == id) {
      return "transfer " + std::to_string(t) + " (endpoint " +
             std::to_string(transfers[t].src.value) + " -> " +
             std::to_string(transfers[t].dst.value) + ")";
    }
  }
  return "endpoint " + std::to_string(id.value) + " (used by no transfer)";
}

void FlowEngine::build_dependents() {
  const std::size_t n = schedule_.size();
  TT_ASSERT(n < std::numeric_limits<std::uint32_t>::max(), "too many transfers");
  waiting_.assign(n, 0);
  dependent_begin_.assign(n + 1, 0);
  // Counting pass, prefix sums, then fill: two linear passes, no per-transfer vectors.
  for (std::size_t i = 0; i < n; ++i) {
    const auto deps = schedule_.deps(TransferId(static_cast<std::int32_t>(i)));
    waiting_[i] = static_cast<std::uint32_t>(deps.size());
    for (TransferId d : deps) ++dependent_begin_[d.index() + 1];
  }
  for (std::size_t i = 0; i < n; ++i) dependent_begin_[i + 1] += dependent_begin_[i];
  dependents_.resize(dependent_begin_[n]);
  std::vector<std::uint32_t> fill(dependent_begin_.begin(), dependent_begin_.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    for (TransferId d : schedule_.deps(TransferId(static_cast<std::int32_t>(i)))) {
      dependents_[fill[d.index()]++] = static_cast<std::uint32_t>(i);
    }
  }
}

void FlowEngine::make_ready(std::uint32_t t) {
  const sched::Transfer& tr = schedule_.transfers()[t];
  if (options_.record_transfers) result_->transfers[t].ready = Seconds(now_);
  const topo::Route& route =
      routes_.route(device_[tr.src.index()], device_[tr.dst.index()], tr.channel);
  events_.push(now_ + route.latency.value, t, kStart);
}

// The route is looked up again here rather than kept from make_ready(): a route is 96 bytes and
// a step at 1024 hosts has 8192 transfers waiting out their latency, so keeping one per
// transfer costs more in cache misses than a second lookup in the (small) route cache.
void FlowEngine::start(std::uint32_t t) {
  const sched::Transfer& tr = schedule_.transfers()[t];
  if (tr.slice.size.value == 0) {
    complete(t);
    return;
  }
  const NodeId src = device_[tr.src.index()];
  const NodeId dst = device_[tr.dst.index()];
  scratch_.clear();
  const topo::Route& route = routes_.route(src, dst, tr.channel);
  for (LinkId l : route.view()) {
    scratch_.push_back(l.value);
    links_[l.index()].bytes += tr.slice.size;
  }
  if (tr.reduce && options_.reduction == ReductionModel::Overlapped) {
    scratch_.push_back(reduce_constraint(dst));
  }
  double bound = MaxMinSolver::kUnbounded;
  if (options_.apply_flow_caps) {
    if (auto cap = network_.flow_cap(src, dst)) bound = cap->value;
  }
  begin_flow(t, Phase::Network, scratch_, bound);
}

void FlowEngine::begin_flow(std::uint32_t t, Phase phase, std::span<const int> constraints,
                            double bound) {
  const std::size_t num_links = links_.size();
  for (int c : constraints) {
    const auto l = static_cast<std::size_t>(c);
    if (l >= num_links) continue;  // a reduction resource, not a link
    if (solver_.users(c) == 0) links_[l].busy_since = now_;
  }
  const int v = solver_.add_variable(constraints, bound);
  if (static_cast<std::size_t>(v) >= flows_.size()) flows_.resize(static_cast<std::size_t>(v) + 1);
  Flow& f = flows_[static_cast<std::size_t>(v)];
  f.transfer = t;
  f.finish_event = kNoEvent;  // invalidates any event left over from the slot's previous flow
  f.phase = phase;
  f.remaining = schedule_.transfers()[t].slice.size.as_double();
  f.rate = 0;
  f.last = now_;
}

void FlowEngine::end_flow(int v) {
  const std::size_t num_links = links_.size();
  for (int c : solver_.constraints_of(v)) {
    const auto l = static_cast<std::size_t>(c);
    if (l >= num_links || solver_.users(c) > 1) continue;  // this flow is not the last one
    links_[l].active += Seconds(now_ - links_[l].busy_since);
  }
  Flow& f = flows_[static_cast<std::size_t>(v)];
  f.finish_event = kNoEvent;
  solver_.remove_variable(v);
  const std::uint32_t t = f.transfer;
  const sched::Transfer& tr = schedule_.transfers()[t];
  if (f.phase == Phase::Network && tr.reduce && options_.reduction == ReductionModel::Serial) {
    const int c = reduce_constraint(device_[tr.dst.index()]);
    begin_flow(t, Phase::Reduction, std::span<const int>(&c, 1), MaxMinSolver::kUnbounded);
    return;
  }
  complete(t);
}

void FlowEngine::complete(std::uint32_t t) {
  if (options_.record_transfers) result_->transfers[t].end = Seconds(now_);
  result_->makespan = Seconds(now_);  // completions happen in time order
  ++completed_;
  for (std::uint32_t k = dependent_begin_[t]; k < dependent_begin_[t + 1]; ++k) {
    const std::uint32_t d = dependents_[k];
    if (--waiting_[d] == 0) make_ready(d);
  }
}

int FlowEngine::reduce_constraint(NodeId device) {
  int& c = reduce_constraint_[network_.reduction_resource(device).index()];
  if (c < 0) c = solver_.add_constraint(network_.reduce_bandwidth(device).value);
  return c;
}

void FlowEngine::apply_rates(std::span<const int> changed) {
  for (int v : changed) {
    Flow& f = flows_[static_cast<std::size_t>(v)];
    // Bytes moved at the old rate since the last change; rounding may overshoot by a hair.
    f.remaining = std::max(0.0, f.remaining - f.rate * (now_ - f.last));
    f.last = now_;
    f.rate = solver_.value(v);
    f.finish_event = kNoEvent;
    if (f.rate <= 0) continue;  // stalled until a neighbour leaves (or forever: see check)
    const double finish = f.rate == MaxMinSolver::kUnbounded ? now_ : now_ + f.remaining / f.rate;
    f.finish_event = events_.push(finish, static_cast<std::uint32_t>(v), kFlowEnd);
  }
}

Expected<void> FlowEngine::check_all_done() const {
  if (completed_ == schedule_.size()) return {};
  // The schedule is a DAG, so the only way to stop early is a flow that never got bandwidth.
  std::string example;
  for (std::size_t v = 0; v < flows_.size() && example.empty(); ++v) {
    if (!solver_.active(static_cast<int>(v))) continue;
    const sched::Transfer& tr = schedule_.transfers()[flows_[v].transfer];
    example = "; e.g. transfer " + std::to_string(flows_[v].transfer) + " (endpoint " +
              std::to_string(tr.src.value) + " -> " + std::to_string(tr.dst.value) +
              ") has no bandwidth on its route";
  }
  return fail(Errc::Internal, std::to_string(schedule_.size() - completed_) +
                                  " transfers never completed" + example);
}

Expected<void> FlowEngine::check_memory_use(std::uint64_t events) const {
  if (options_.memory_limit.value <= 0) return {};
  const std::optional<Bytes> rss = resident_memory();
  if (!rss || *rss <= options_.memory_limit) return {};
  return fail(Errc::InvalidArgument,
              "stopped after " + std::to_string(events) + " events: the simulation of " +
                  std::to_string(schedule_.size()) + " transfers grew to " + format_gib(*rss) +
                  " resident, past the " + format_gib(options_.memory_limit) +
                  " it may use (many flows in flight at once; see docs/limits.md)");
}

Expected<void> FlowEngine::run(SimResult& result) {
  result_ = &result;
  TT_TRY_VOID(map_endpoints());
  build_dependents();
  const std::size_t num_links = network_.num_links();
  result.links.assign(num_links, LinkStats{});
  if (options_.record_transfers) result.transfers.assign(schedule_.size(), TransferTiming{});
  for (std::size_t l = 0; l < num_links; ++l) {
    solver_.add_constraint(network_.link_bandwidth(LinkId(static_cast<std::int32_t>(l))).value);
  }
  links_.assign(num_links, LinkState{});
  reduce_constraint_.assign(network_.num_devices(), -1);

  for (std::size_t t = 0; t < schedule_.size(); ++t) {
    if (waiting_[t] == 0) make_ready(static_cast<std::uint32_t>(t));
  }
  std::uint64_t next_memory_check = kMemoryCheckEvents;
  while (!events_.empty()) {
    if (result.events >= next_memory_check) {
      next_memory_check = result.events + kMemoryCheckEvents;
      TT_TRY_VOID(check_memory_use(result.events));
    }
    now_ = events_.top_time();
    // Every event of this instant first, then one solve for the batch.
    while (!events_.empty() && events_.top_time() == now_) {
      const Event ev = events_.pop();
      ++result.events;
      if (ev.kind == kStart) {
        start(ev.id);
      } else if (flows_[ev.id].finish_event == ev.seq) {
        end_flow(static_cast<int>(ev.id));
      }
    }
    apply_rates(solver_.solve());
  }
  for (std::size_t l = 0; l < num_links; ++l) {
    LinkStats& out = result.links[l];
    out.bytes = links_[l].bytes;
    out.active = links_[l].active;
    const double capacity = solver_.capacity(static_cast<int>(l));
    if (capacity > 0) out.busy = Seconds(out.bytes.as_double() / capacity);
  }
  return check_all_done();
}

}  // namespace topotune::sim
