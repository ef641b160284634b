#include "timing/fabric_probe.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "algorithms/nccl/nccl_predictor.h"
#include "algorithms/schedule/schedule.h"
#include "simulator/simulator.h"
#include "topology/topology.h"

namespace topotune::tune {
namespace {

// Large enough that route latencies (microseconds) vanish next to the transfer time, so the ratio
// of two makespans is the ratio of bottleneck rates.
constexpr std::int64_t kProbeBytes = std::int64_t{256} << 20;

struct Flow {
  RankId src, dst;
  int channel = 0;  ///< route hint: picks among the source GPU's NICs
};

// The local GPU whose rails include NIC `nic`, and the channel that makes route() take it.
std::pair<int, int> gpu_on_nic(const topo::Topology& t, int nic) {
  for (int g = 0; g < t.gpus_per_host(); ++g) {
    const std::vector<int>& nics = t.nics_of_gpu(g);
    const auto it = std::find(nics.begin(), nics.end(), nic);
    if (it != nics.end()) return {g, static_cast<int>(it - nics.begin())};
  }
  return {nic % t.gpus_per_host(), 0};
}

int num_nics(const topo::Topology& t) {
  int n = 0;
  for (int g = 0; g < t.gpus_per_host(); ++g) {
    for (int k : t.nics_of_gpu(g)) n = std::max(n, k + 1);
  }
  return std::max(n, 1);
}

RankId rank(const topo::Topology& t, int host, int gpu) {
  return RankId(host * t.gpus_per_host() + gpu);
}

std::vector<Flow> ring_pattern(const topo::Topology& t, int channels) {
  std::vector<Flow> out;
  const int hosts = t.num_hosts();
  for (int c = 0; c < channels; ++c) {
    const auto [g, hint] = gpu_on_nic(t, c % num_nics(t));
    for (int h = 0; h < hosts; ++h)
      out.push_back({rank(t, h, g), rank(t, (h + 1) % hosts, g), hint});
  }
  return out;
}

std::vector<Flow> tree_pattern(const topo::Topology& t, int channels) {
  std::vector<Flow> out;
  const int hosts = t.num_hosts();
  for (int c = 0; c < channels; ++c) {
    const auto [g, hint] = gpu_on_nic(t, c % num_nics(t));
    // Tree 0 in heap order; tree 1 the same shape on the mirrored host order, so that a leaf of one
    // tree is an inner node of the other (NCCL's double binary tree property).
    const auto host = [&](int i) { return c % 2 == 0 ? i : hosts - 1 - i; };
    for (int i = 1; i < hosts; ++i) {
      const RankId child = rank(t, host(i), g), parent = rank(t, host((i - 1) / 2), g);
      out.push_back({child, parent, hint});
      out.push_back({parent, child, hint});
    }
  }
  return out;
}

std::vector<Flow> rails_pattern(const topo::Topology& t) {
  std::vector<Flow> out;
  const int hosts = t.num_hosts();
  for (int g = 0; g < t.gpus_per_host(); ++g) {
    for (int h = 0; h < hosts; ++h) out.push_back({rank(t, h, g), rank(t, (h + 1) % hosts, g), 0});
  }
  return out;
}

// Makespan of one round of the flows, all starting at once.
Expected<Seconds> round_time(const topo::Topology& t, const std::vector<Flow>& flows) {
  sched::CollectiveSpec spec;
  spec.ranks = t.num_ranks();
  spec.bytes = Bytes(kProbeBytes);
  sched::ScheduleBuilder b(spec, "fabric probe");
  for (const Flow& f : flows) {
    b.add(f.src, f.dst, sched::Slice{Bytes(0), Bytes(kProbeBytes)}, false, {}, f.channel);
  }
  TT_TRY(const sched::Schedule s, std::move(b).build());
  sim::SimOptions o;
  o.record_transfers = false;
  TT_TRY(const sim::SimResult r, sim::Simulator(t, o).run(s));
  return r.makespan;
}

Expected<double> share(const topo::Topology& actual, const topo::Topology& reference,
                       const std::vector<Flow>& flows) {
  TT_TRY(const Seconds a, round_time(actual, flows));
  TT_TRY(const Seconds r, round_time(reference, flows));
  if (!(a.value > 0)) return 1.0;
  return std::clamp(r.value / a.value, 1e-6, 1.0);
}

}  // namespace

Expected<FabricProbe> probe_fabric(const topo::ClusterSpec& spec, int channels) {
  FabricProbe p;
  if (spec.hosts < 2) return p;
  TT_TRY(const topo::Topology actual, topo::build_topology(spec));
  const std::vector<Flow> rails = rails_pattern(actual);
  TT_TRY(const Seconds rails_time, round_time(actual, rails));
  p.rails_rate = BytesPerSec(static_cast<double>(kProbeBytes) / rails_time.value);
  // A cluster that is its own reference (one non-blocking segment, the default per-flow cap) keeps
  // every share at 1 by construction (the same flows on the same links): not simulating it twice
  // keeps plans of 1024 hosts fast.
  if (spec.placement == topo::Placement::Cluster && spec.fabric.hosts_per_rack == 0 &&
      spec.fabric.oversubscription <= 1.0 && !spec.fabric.per_flow_cap) {
    return p;
  }
  topo::ClusterSpec ref_spec = spec;
  ref_spec.placement = topo::Placement::Cluster;
  ref_spec.fabric.hosts_per_rack = 0;
  ref_spec.fabric.oversubscription = 1.0;
  ref_spec.fabric.per_flow_cap.reset();
  TT_TRY(const topo::Topology reference, topo::build_topology(ref_spec));
  channels = std::max(1, channels);
  TT_TRY(p.ring_share, share(actual, reference, ring_pattern(actual, channels)));
  TT_TRY(p.tree_share, share(actual, reference, tree_pattern(actual, channels)));
  TT_TRY(p.rails_share, share(actual, reference, rails));
  const RankId far(actual.num_ranks() - actual.gpus_per_host());
  const Seconds a = actual.route(actual.gpu_of(RankId(0)), actual.gpu_of(far)).latency;
  const Seconds r = reference.route(reference.gpu_of(RankId(0)), reference.gpu_of(far)).latency;
  p.extra_crossing_latency = Seconds(std::max(0.0, a.value - r.value));
  return p;
}

int nccl_inter_node_channels(const algo::NcclSystem& s, const algo::NcclModelParams& p) {
  // The channels NCCL runs its rings on (its search and Postset, as the predictor emulates).
  const algo::NcclPredictor predictor(s, p, algo::NcclOptions{});
  return std::max(1, predictor.graphs().comm_channels);
}

Expected<algo::NcclSystem> nccl_system_on_fabric(const topo::ClusterSpec& spec,
                                                 const algo::NcclModelParams& params) {
  TT_TRY(algo::NcclSystem s, algo::nccl_system_from_cluster(spec));
  TT_TRY(const FabricProbe p, probe_fabric(spec, nccl_inter_node_channels(s, params)));
  s.fabric = p.nccl();
  return s;
}

}  // namespace topotune::tune
