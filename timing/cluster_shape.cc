#include "timing/cluster_shape.h"

#include <algorithm>

#include "topology/topology.h"

namespace topotune::tune {

Expected<ClusterShape> cluster_shape(const topo::ClusterSpec& spec, const ShapeDefaults& d) {
  using topo::LinkKind;
  // Every host is identical, so two hosts show every kind of path; building the full cluster
  // (1024 hosts) only to read these figures would be waste.
  topo::ClusterSpec small = spec;
  small.hosts = std::min(spec.hosts, 2);
  TT_TRY(const topo::Topology t, topo::build_topology(small));
  ClusterShape s;
  s.instance = spec.instance.name;
  s.gpu_model = spec.instance.gpu.model;
  s.hosts = spec.hosts;
  s.gpus_per_host = t.gpus_per_host();
  const NodeId g0 = t.gpu_of(RankId(0));
  if (s.gpus_per_host > 1) {
    const topo::Route r = t.route(g0, t.gpu_of(RankId(1)));
    s.intra_bw = r.bottleneck;
    s.intra_latency = r.latency + d.intra_step_overhead;
  } else {
    s.intra_bw = BytesPerSec(1e15);  // no intra-host phase at all
    s.intra_latency = Seconds(0);
  }
  const topo::LinkClassParams& net = t.spec().params(LinkKind::Network);
  s.host_net_bw = t.host_nic_bandwidth() * net.efficiency;
  if (t.num_hosts() > 1) {
    const topo::Route r = t.route(g0, t.gpu_of(RankId(s.gpus_per_host)));
    s.net_latency = r.latency + d.net_step_overhead;
  } else {
    s.net_latency = net.latency * 2.0 + d.net_step_overhead;  // unused with one host
  }
  s.cpu_reduce_bw = t.reduce_bandwidth(t.cpu_of_host(0));
  s.op_latency = d.op_latency;
  s.peak_flops = spec.instance.gpu.peak_fp16_flops;
  s.nvswitch = spec.instance.fabric == topo::IntraFabric::NvSwitch;
  return s;
}

}  // namespace topotune::tune
