#include "timing/simulator_timer.h"

#include <algorithm>

#include "algorithms/rank_layout.h"
#include "simulator/simulator.h"
#include "timing/collective_simulation.h"
#include "timing/nccl_timer.h"
#include "timing/schedule_algorithm.h"

namespace topotune::tune {
namespace {

std::string with_count(const std::string& what, std::int64_t n) {
  return what + " (~" + std::to_string(n) + " transfers)";
}

// Schedules generated in full (the others are written reduced, collective_simulation.h):
// generation is linear (~40 ns a transfer) but the schedule is ~36 bytes a transfer.
constexpr std::int64_t kMaxGenerated = 20'000'000;

// How many transfers each simulated one stands for: the families whose rows say so (ring and
// hierarchical over an inner ring) are invariant under a shift by whole racks (pods under a
// super-spine), and are generated one transfer per orbit of twins when the cluster has such a
// shift (simulator/symmetry.h). A conservative estimate (1 where it may not apply).
std::int64_t symmetry_of(const AlgorithmChoice& a, const topo::Topology& t) {
  const int period = t.host_period();
  if (period <= 0 || period >= t.num_hosts()) return 1;
  return algo::shift_invariant(a) ? t.num_hosts() / period : 1;
}

// Transfers of the schedule the rank stage would generate (algo::estimated_transfers counts
// every topotune schedule, ring and dbtree included; NCCL's own algorithms are not simulated).
std::int64_t generated_transfers(const AlgorithmChoice& a, const topo::Topology& t) {
  return estimated_transfers(a, t.num_hosts(), t.gpus_per_host());
}

}  // namespace

SimulatorTimer::SimulatorTimer(topo::Topology topology, const CollectiveTimer& nccl_like,
                               Bytes max_bytes, SimBudget budget, bool nccl_backend)
    : topology_(std::move(topology)),
      nccl_like_(nccl_like),
      max_bytes_(max_bytes),
      budget_(budget),
      nccl_backend_(nccl_backend) {}

Expected<std::unique_ptr<SimulatorTimer>> SimulatorTimer::create(const topo::ClusterSpec& spec,
                                                                 const CollectiveTimer& nccl_like,
                                                                 Bytes max_bytes, SimBudget budget,
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
  sim::SimOptions options;
  options.record_transfers = false;
  // A schedule counted as reduced in the budget must not silently run in full.
  const bool reduced =
      symmetry_of(a, topology_) > 1 && generated_transfers(a, topology_) > budget_.max_transfers;
  TT_TRY(const CollectiveSimulation r,
         simulate_collective(*alg, spec, layout, topology_, options,
                             reduced ? Generation::ReducedOnly : Generation::Auto));
  ++simulations_;
  transfers_ += r.simulated;  // the work done
  return r.result.makespan;
}

Expected<std::vector<Seconds>> SimulatorTimer::sample(const AlgorithmChoice& a) const {
  const std::int64_t full = generated_transfers(a, topology_);
  // The budget is the simulator's work: transfers once symmetry has reduced them (and what is
  // generated: reduced schedules are written reduced).
  const std::int64_t n = full / symmetry_of(a, topology_);
  if (n == full && full > kMaxGenerated) {
    return fail(Errc::Unsupported, with_count(a.name(), full) + " is above the " +
                                       std::to_string(kMaxGenerated) +
                                       " transfers the rank stage generates");
  }
  if (n > budget_.max_transfers) {
    return fail(Errc::Unsupported, with_count(a.name(), n) + " is above the " +
                                       std::to_string(budget_.max_transfers) +
                                       " distinct transfers the rank stage simulates");
  }
  const std::vector<Bytes> sizes = samples(full);
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
  const std::vector<Bytes> at = samples(generated_transfers(a, topology_));
  // Piecewise linear through the samples; the first and last segments extend outwards.
  if (at.size() == 1) return t[0] * (bytes.as_double() / at[0].as_double());
  std::size_t i = 1;
  while (i + 1 < at.size() && bytes > at[i]) ++i;
  const double x0 = at[i - 1].as_double(), x1 = at[i].as_double();
  const double slope = (t[i].value - t[i - 1].value) / (x1 - x0);
  return Seconds(std::max(0.0, t[i - 1].value + slope * (bytes.as_double() - x0)));
}

namespace {

// The tiers the simulation ran on, for the notes.
std::string fabric_words(const topo::Topology& t) {
  const int leaves = t.num_racks() * t.leaves_per_rack();
  if (leaves == 1) return "one switch";
  std::string s = std::to_string(leaves) + " leaves";
  if (t.num_pods() == 1) return s + " and a spine";
  return s + ", " + std::to_string(t.num_pods()) + " spines (pods of " +
         std::to_string(t.racks_per_pod()) + " racks) and a super-spine";
}

}  // namespace

std::string SimulatorTimer::fabric() const { return fabric_words(topology_); }

std::vector<std::string> SimulatorTimer::summary() const {
  std::string done;
  for (const auto& [a, times] : sampled_) {
    if (!times) continue;  // the caller reports the refusal where it asked
    const std::int64_t m = symmetry_of(a, topology_);
    done += (done.empty() ? "" : ", ") + a.name() + " (" + std::to_string(times->size()) +
            " sizes" + (m > 1 ? ", one flow per " + std::to_string(m) + " twins" : "") + ")";
  }
  if (done.empty()) return {};
  return {"rank stage simulated " + done + " on the full " + std::to_string(topology_.num_hosts()) +
          "-node fabric (" + fabric_words(topology_) + ")"};
}

}  // namespace topotune::tune
