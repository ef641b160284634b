#include "simulator/flow_engine.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/assert.h"
#include "core/memory_budget.h"
#include "simulator/link_classes.h"

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
  if (n == 0) return;
  // Counting pass, prefix sums, then fill: two linear passes, no per-transfer vectors. The
  // schedule's dependencies are one CSR array (Transfer::dep_end): walked directly rather than
  // through a call to Schedule::deps() per transfer.
  const auto transfers = schedule_.transfers();
  const TransferId* const deps = schedule_.deps(TransferId(0)).data();
  std::uint32_t begin = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t end = transfers[i].dep_end;
    waiting_[i] = end - begin;
    for (std::uint32_t k = begin; k < end; ++k) ++dependent_begin_[deps[k].index() + 1];
    begin = end;
  }
  for (std::size_t i = 0; i < n; ++i) dependent_begin_[i + 1] += dependent_begin_[i];
  dependents_.resize(dependent_begin_[n]);
  std::vector<std::uint32_t> fill(dependent_begin_.begin(), dependent_begin_.end() - 1);
  begin = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t end = transfers[i].dep_end;
    for (std::uint32_t k = begin; k < end; ++k) {
      dependents_[fill[deps[k].index()]++] = static_cast<std::uint32_t>(i);
    }
    begin = end;
  }
}

// Every transfer's route, looked up once before the run in schedule order; then the links'
// classes (link_classes.h), when every route is kept: the solver's constraints.
void FlowEngine::find_routes() {
  const auto transfers = schedule_.transfers();
  route_of_.resize(transfers.size());
  // A sender's transfers mostly go where its previous one went (a ring position always sends
  // to the next): each endpoint's last (destination, channel, route) saves most hash lookups.
  struct Last {
    std::int32_t dst = -1;
    int channel = -1;
    std::uint32_t route = RouteCache::kNotCached;
  };
  std::vector<Last> last(device_.size());
  bool all_kept = true;
  for (std::size_t t = 0; t < transfers.size(); ++t) {
    const sched::Transfer& tr = transfers[t];
    Last& l = last[tr.src.index()];
    if (l.dst != tr.dst.value || l.channel != tr.channel) {
      l = {tr.dst.value, tr.channel,
           routes_.find(device_[tr.src.index()], device_[tr.dst.index()], tr.channel)};
    }
    route_of_[t] = l.route;
    all_kept = all_kept && l.route != RouteCache::kNotCached;
  }
  classes_ = all_kept ? LinkClasses::of(routes_, network_) : LinkClasses::identity(network_);
}

void FlowEngine::make_ready(std::uint32_t t) {
  if (options_.record_transfers) result_->transfers[t].ready = Seconds(now_);
  const std::uint32_t route = route_of_[t];
  double latency;
  if (route != RouteCache::kNotCached) {
    latency = routes_.entry(route).latency;
  } else {
    const sched::Transfer& tr = schedule_.transfers()[t];
    latency =
        network_.route(device_[tr.src.index()], device_[tr.dst.index()], tr.channel).latency.value;
  }
  events_.push(now_ + latency, t, route);
}

// `route` is the transfer's RouteCache index (carried by its start event): its classes are the
// flow's constraints, its cap the flow's bound, and the bytes are counted once per route.
void FlowEngine::start(std::uint32_t t, std::uint32_t route) {
  const sched::Transfer& tr = schedule_.transfers()[t];
  if (tr.slice.size.value == 0) {
    complete(t);
    return;
  }
  const NodeId dst = device_[tr.dst.index()];
  std::span<const int> links;
  double cap = MaxMinSolver::kUnbounded;
  if (route != RouteCache::kNotCached) {
    links = classes_.of_route(routes_, route);
    cap = routes_.entry(route).cap;
    route_bytes_[route] += tr.slice.size;
  } else {  // classes are the links themselves (LinkClasses::identity)
    const NodeId src = device_[tr.src.index()];
    const topo::Route r = network_.route(src, dst, tr.channel);
    uncached_.clear();
    for (LinkId l : r.view()) {
      uncached_.push_back(l.value);
      link_bytes_[l.index()] += tr.slice.size;
    }
    links = uncached_;
    if (auto c = network_.flow_cap(src, dst)) cap = c->value;
  }
  if (tr.reduce && options_.reduction == ReductionModel::Overlapped) {
    scratch_.assign(links.begin(), links.end());
    scratch_.push_back(reduce_constraint(dst));
    links = scratch_;
  }
  const double bound = options_.apply_flow_caps ? cap : MaxMinSolver::kUnbounded;
  begin_flow(t, Phase::Network, links, bound);
}

void FlowEngine::begin_flow(std::uint32_t t, Phase phase, std::span<const int> constraints,
                            double bound) {
  const std::size_t num_classes = links_.size();
  for (int c : constraints) {
    const auto k = static_cast<std::size_t>(c);
    if (k >= num_classes) continue;  // a reduction resource, not a link
    if (links_[k].users++ == 0) links_[k].busy_since = now_;
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
  const std::size_t num_classes = links_.size();
  for (int c : solver_.constraints_of(v)) {
    const auto k = static_cast<std::size_t>(c);
    if (k >= num_classes) continue;
    if (--links_[k].users == 0) links_[k].active += Seconds(now_ - links_[k].busy_since);
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

// Per link: its class's busy time and the bytes of every route crossing it (each route's bytes
// counted once per class it crosses: the class's links are crossed by the same routes), plus
// what uncached routes sent over it.
void FlowEngine::fill_link_stats(SimResult& result) const {
  std::vector<Bytes> class_bytes(classes_.num_classes(), Bytes{0});
  for (std::uint32_t r = 0; r < routes_.size(); ++r) {
    if (route_bytes_[r].value == 0) continue;
    for (int c : classes_.of_route(routes_, r)) {
      class_bytes[static_cast<std::size_t>(c)] += route_bytes_[r];
    }
  }
  const std::size_t num_links = network_.num_links();
  result.links.assign(num_links, LinkStats{});
  for (std::size_t l = 0; l < num_links; ++l) {
    LinkStats& out = result.links[l];
    out.bytes = link_bytes_[l];
    const int c = classes_.class_of(l);
    if (c >= 0) {
      out.bytes += class_bytes[static_cast<std::size_t>(c)];
      out.active = links_[static_cast<std::size_t>(c)].active;
    }
    const double capacity = network_.link_bandwidth(LinkId(static_cast<std::int32_t>(l))).value;
    if (capacity > 0) out.busy = Seconds(out.bytes.as_double() / capacity);
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
  find_routes();
  const std::size_t num_links = network_.num_links();
  if (options_.record_transfers) result.transfers.assign(schedule_.size(), TransferTiming{});
  for (std::size_t k = 0; k < classes_.num_classes(); ++k) {
    solver_.add_constraint(classes_.capacity(static_cast<int>(k)));
  }
  links_.assign(classes_.num_classes(), LinkState{});
  route_bytes_.assign(routes_.size(), Bytes{0});
  link_bytes_.assign(num_links, Bytes{0});
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
    now_ = events_.advance();
    // Every event of this instant first, then one solve for the batch.
    Event ev;
    while (events_.pop_current(ev)) {
      ++result.events;
      if (ev.tag != kFlowEnd) {
        start(ev.id, ev.tag);
      } else if (flows_[ev.id].finish_event == ev.seq) {
        end_flow(static_cast<int>(ev.id));
      }
    }
    apply_rates(solver_.solve());
  }
  fill_link_stats(result);
  return check_all_done();
}

}  // namespace topotune::sim
