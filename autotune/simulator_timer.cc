#include "autotune/simulator_timer.h"

#include <algorithm>

#include "algorithms/rank_layout.h"
#include "autotune/nccl_timer.h"
#include "autotune/schedule_algorithm.h"
#include "simulator/simulator.h"

namespace topotune::tune {
namespace {

std::string with_count(const std::string& what, std::int64_t n) {
  return what + " (~" + std::to_string(n) + " transfers)";
}

}  // namespace

SimulatorTimer::SimulatorTimer(topo::Topology topology, const CollectiveTimer& nccl_like,
                               Bytes max_bytes, SimBudget budget, bool nccl_backend)
    : topology_(std::move(topology)), nccl_like_(nccl_like), max_bytes_(max_bytes),
      budget_(budget), nccl_backend_(nccl_backend) {}

Expected<std::unique_ptr<SimulatorTimer>> SimulatorTimer::create(const topo::ClusterSpec& spec,
                                                                 const CollectiveTimer& nccl_like,
                                                                 Bytes max_bytes,
                                                                 SimBudget budget,
                                                                 bool nccl_backend,
                                                                 const ClosedFormTimer* software) {
  TT_TRY(topo::Topology t, topo::build_topology(spec));
  std::unique_ptr<SimulatorTimer> timer(
      new SimulatorTimer(std::move(t), nccl_like, max_bytes, budget, nccl_backend));
  timer->software_ = software;
  return timer;
}

bool SimulatorTimer::delegated(const AlgorithmChoice& a) const {
  // NCCL's own algorithms (nccl:*) are answered by the screening timer: the NCCL predictor on
  // the nccl backend, topotune's ring/dbtree closed forms standing in for them on mpi.
  return a.is_nccl();
}

std::string SimulatorTimer::model(const AlgorithmChoice& a) const {
  return delegated(a) ? nccl_like_.model(a) : "simulated";
}

std::string SimulatorTimer::name() const {
  return nccl_backend_ ? "flow simulator (NCCL's nccl:default/nccl:ring/nccl:tree: as screened)"
                       : "flow simulator (every schedule; nccl:default: as screened)";
}

std::vector<Bytes> SimulatorTimer::samples(std::int64_t transfers) const {
  const std::int64_t step = transfers > budget_.coarse_above ? 64 : 8;
  std::vector<Bytes> out;
  for (Bytes b = 1_MiB;; b = b * step) {
    out.push_back(b);
    if (b >= max_bytes_) break;
  }
  return out;
}

Expected<Seconds> SimulatorTimer::simulate(const AlgorithmChoice& a, Bytes bytes) const {
  TT_TRY(const std::unique_ptr<algo::Algorithm> alg, make_schedule_algorithm(a));
  TT_TRY(const algo::RankLayout layout,
         algo::layout_from_topology(topology_, std::max(1, a.channels)));
  sched::CollectiveSpec spec;
  spec.ranks = layout.ranks();
  spec.bytes = bytes;
  TT_TRY(const sched::Schedule schedule, alg->generate(spec, layout));
  sim::SimOptions options;
  options.record_transfers = false;
  TT_TRY(const sim::SimResult r, sim::Simulator(topology_, options).run(schedule));
  ++simulations_;
  transfers_ += static_cast<std::int64_t>(schedule.size());
  return r.makespan;
}

Expected<std::vector<Seconds>> SimulatorTimer::sample(const AlgorithmChoice& a) const {
  const std::int64_t n =
      estimated_transfers(a, topology_.num_hosts(), topology_.gpus_per_host());
  if (n > budget_.max_transfers) {
    return fail(Errc::Unsupported, with_count(a.name(), n) + " is above the " +
                                       std::to_string(budget_.max_transfers) +
                                       " transfers the rank stage simulates");
  }
  const std::vector<Bytes> sizes = samples(n);
  if (transfers_ + n * static_cast<std::int64_t>(sizes.size()) > budget_.max_total) {
    return fail(Errc::Unsupported, with_count(a.name(), n) + ": the rank stage's budget of " +
                                       std::to_string(budget_.max_total) +
                                       " simulated transfers is spent");
  }
  std::vector<Seconds> times;
  for (Bytes s : sizes) {
    TT_TRY(const Seconds t, simulate(a, s));
    times.push_back(t);
  }
  return times;
}

Expected<Seconds> SimulatorTimer::allreduce(const AlgorithmChoice& a, Bytes bytes) const {
  if (delegated(a)) return nccl_like_.allreduce(a, bytes);
  if (bytes.value <= 0) return Seconds(0);
  TT_TRY(const Seconds t, interpolated(a, bytes));
  if (!software_) return t;
  TT_TRY(const Seconds overhead, software_->software_overhead(a, bytes));
  return t + overhead;
}

Expected<Seconds> SimulatorTimer::interpolated(const AlgorithmChoice& a, Bytes bytes) const {
  auto it = sampled_.find(a);
  if (it == sampled_.end()) it = sampled_.emplace(a, sample(a)).first;
  if (!it->second) return Unexpected(it->second.error());
  const std::vector<Seconds>& t = *it->second;
  const std::vector<Bytes> at = samples(
      estimated_transfers(a, topology_.num_hosts(), topology_.gpus_per_host()));
  // Piecewise linear through the samples; the first and last segments extend outwards.
  if (at.size() == 1) return t[0] * (bytes.as_double() / at[0].as_double());
  std::size_t i = 1;
  while (i + 1 < at.size() && bytes > at[i]) ++i;
  const double x0 = at[i - 1].as_double(), x1 = at[i].as_double();
  const double slope = (t[i].value - t[i - 1].value) / (x1 - x0);
  return Seconds(std::max(0.0, t[i - 1].value + slope * (bytes.as_double() - x0)));
}

std::vector<std::string> SimulatorTimer::summary() const {
  std::string done;
  for (const auto& [a, times] : sampled_) {
    if (!times) continue;  // the caller reports the refusal where it asked
    done += (done.empty() ? "" : ", ") + a.name() + " (" + std::to_string(times->size()) +
            " sizes)";
  }
  if (done.empty()) return {};
  return {"rank stage simulated " + done};
}

}  // namespace topotune::tune
