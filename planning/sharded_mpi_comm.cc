#include "planning/sharded_mpi_comm.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "algorithms/schedule/schedule.h"
#include "simulator/simulator.h"
#include "timing/collective_simulation.h"

namespace topotune::tune {
namespace {

// The buffer rounded up to whole elements, as the job's tensors are.
Bytes whole_elements(Bytes b, sched::DataType dtype) {
  const std::int64_t e = sched::dtype_size(dtype);
  return Bytes((b.value + e - 1) / e * e);
}

Expected<sched::Schedule> ring_schedule(sched::Collective c, int ranks, int gpus_per_host,
                                        Bytes bytes, sched::DataType dtype) {
  TT_TRY(const std::unique_ptr<algo::Algorithm> ring,
         algo::make_algorithm("ring", algo::AlgorithmOptions{}, c));
  TT_TRY(const algo::RankLayout layout, algo::flat_layout(ranks, gpus_per_host));
  sched::CollectiveSpec spec;
  spec.collective = c;
  spec.ranks = ranks;
  spec.bytes = bytes;
  spec.dtype = dtype;
  return ring->generate(spec, layout);
}

// Copies of `inner` into `b`, copy k on ranks rank_of(k, r) and at byte offset k * shift:
// independent collectives run at once on one topology.
void add_copies(sched::ScheduleBuilder& b, const sched::Schedule& inner, int copies,
                const std::function<RankId(int, int)>& rank_of, Bytes shift) {
  for (int k = 0; k < copies; ++k) {
    const auto base = static_cast<std::uint32_t>(b.size());
    for (std::size_t i = 0; i < inner.size(); ++i) {
      const TransferId id(static_cast<std::uint32_t>(i));
      const sched::Transfer& t = inner.transfer(id);
      std::vector<TransferId> deps;
      for (TransferId d : inner.deps(id)) deps.push_back(TransferId(base + d.value));
      const sched::Slice slice{t.slice.offset + shift * k, t.slice.size};
      b.add(rank_of(k, static_cast<int>(t.src.value)), rank_of(k, static_cast<int>(t.dst.value)),
            slice, t.reduce, deps, t.channel);
    }
  }
}

}  // namespace

Expected<std::shared_ptr<const ShardedMpiComm>> ShardedMpiComm::create(
    const topo::ClusterSpec& spec, ShapeDefaults costs) {
  TT_TRY(topo::Topology topology, topo::build_topology(spec));
  return std::shared_ptr<const ShardedMpiComm>(new ShardedMpiComm(std::move(topology), costs));
}

std::shared_ptr<const ShardedMpiComm> ShardedMpiComm::on(topo::Topology topology,
                                                         ShapeDefaults costs) {
  return std::shared_ptr<const ShardedMpiComm>(new ShardedMpiComm(std::move(topology), costs));
}

int ShardedMpiComm::group_ranks(ShardGroup group) const {
  switch (group) {
    case ShardGroup::World:
      return topology_.num_ranks();
    case ShardGroup::Node:
      return topology_.gpus_per_host();
    case ShardGroup::Replica:
      return topology_.num_hosts();
  }
  return 1;
}

Expected<Seconds> ShardedMpiComm::simulate(sched::Collective c, ShardGroup group, Bytes bytes,
                                           sched::DataType dtype) const {
  const int n = group_ranks(group);
  const int g = topology_.gpus_per_host();
  sim::SimOptions options;
  options.record_transfers = false;
  if (group == ShardGroup::World) {
    TT_TRY(const std::unique_ptr<algo::Algorithm> ring,
           algo::make_algorithm("ring", algo::AlgorithmOptions{}, c));
    TT_TRY(const algo::RankLayout layout, algo::layout_from_topology(topology_, 1));
    const sched::CollectiveSpec spec{c, n, bytes, dtype};
    TT_TRY(const CollectiveSimulation r,
           simulate_collective(*ring, spec, layout, topology_, options));
    return r.result.makespan;
  }
  // Node: one copy on host 0's ranks. Replica: G copies, copy l on local rank l of every host,
  // each on its own part of a buffer G times as large.
  const bool node = group == ShardGroup::Node;
  TT_TRY(const sched::Schedule inner, ring_schedule(c, n, node ? n : 1, bytes, dtype));
  const int copies = node ? 1 : g;
  const sched::CollectiveSpec outer{c, topology_.num_ranks(), bytes * copies, dtype};
  sched::ScheduleBuilder b(outer, inner.algorithm() + (node ? " on host 0" : " per rail"));
  add_copies(
      b, inner, copies, [node, g](int k, int r) { return node ? RankId(r) : RankId(r * g + k); },
      bytes);
  TT_TRY(const sched::Schedule schedule, std::move(b).build());
  TT_TRY(const sim::SimResult r, sim::Simulator(topology_, options).run(schedule));
  return r.makespan;
}

Expected<Seconds> ShardedMpiComm::time(sched::Collective c, ShardGroup group, Bytes bytes,
                                       sched::DataType dtype) const {
  const int n = group_ranks(group);
  if (n <= 1 || bytes.value <= 0) return Seconds(0);
  bytes = whole_elements(bytes, dtype);
  const auto key = std::make_tuple(static_cast<int>(c), static_cast<int>(group), bytes.value,
                                   static_cast<int>(dtype));
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  TT_TRY(const Seconds wire, simulate(c, group, bytes, dtype));
  // Ring steps: n-1 for a half, 2(n-1) for the allreduce; across hosts unless in the node.
  const int steps = (c == sched::Collective::Allreduce ? 2 : 1) * (n - 1);
  const bool intra = group == ShardGroup::Node || topology_.num_hosts() == 1;
  const Seconds step = intra ? costs_.intra_step_overhead : costs_.net_step_overhead;
  Seconds t = wire + costs_.op_latency + step * steps;
  // gloo's allgather sends each step's block as two segments (gloo/allgather.cc), and a
  // collective begins where the previous one ended on each rank, up to a segment apart, with a
  // send that waits for its receiver's announcement (sharded_mpi_comm.h): half a segment.
  if (c == sched::Collective::Allgather) t += wire * (kAllgatherStartSegments / (2.0 * (n - 1)));
  cache_.emplace(key, t);
  return t;
}

CollectiveTime ShardedMpiComm::timer(sched::Collective c, ShardGroup group,
                                     sched::DataType dtype) const {
  return [this, c, group, dtype](Bytes b) { return time(c, group, b, dtype); };
}

}  // namespace topotune::tune
