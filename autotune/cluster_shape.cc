#include "autotune/cluster_shape.h"

#include <algorithm>

namespace topotune::tune {

ClusterShape cluster_shape(const topo::ClusterSpec& spec, const ShapeDefaults& d) {
  using topo::LinkKind;
  const topo::InstanceSpec& in = spec.instance;
  ClusterShape s;
  s.instance = in.name;
  s.gpu_model = in.gpu.model;
  s.hosts = spec.hosts;
  s.gpus_per_host = std::max(1, in.num_gpus);
  double intra_eff = d.intra_efficiency;
  double net_eff = d.net_efficiency;
  s.intra_latency = d.intra_latency;
  s.net_latency = d.net_latency;
  if (spec.link_params_set) {
    intra_eff = spec.params(LinkKind::NvLink).efficiency;
    net_eff = spec.params(LinkKind::Network).efficiency;
    s.intra_latency = spec.params(LinkKind::NvLink).latency;
    s.net_latency = spec.params(LinkKind::Network).latency;
  }
  s.op_latency = d.op_latency;
  // Intra-host: NVLink into the switch (or to mesh peers) when there is NVLink, else PCIe.
  double intra = in.nvlink_bandwidth_per_link.value * std::max(0, in.nvlinks_per_gpu);
  if (in.fabric == topo::IntraFabric::NvLinkMesh && !in.nvlink_pairs.empty()) {
    // A ring on a mesh uses one neighbour's links in each direction.
    int links = 0;
    for (const topo::NvLinkPair& p : in.nvlink_pairs) links = std::max(links, p.links);
    intra = in.nvlink_bandwidth_per_link.value * links;
  }
  if (in.fabric == topo::IntraFabric::PcieOnly || intra <= 0) {
    intra = in.pcie_bandwidth ? in.pcie_bandwidth->value : 16e9;  // PCIe 3 x16 fallback
  }
  s.intra_bw = BytesPerSec(intra * intra_eff);
  s.host_net_bw = BytesPerSec(in.nic_bandwidth.value * std::max(0, in.num_nics) * net_eff);
  s.cpu_reduce_bw = in.cpu_reduce_bandwidth.value_or(BytesPerSec(20e9));
  s.peak_flops = in.gpu.peak_fp16_flops;
  s.nvswitch = in.fabric == topo::IntraFabric::NvSwitch;
  return s;
}

}  // namespace topotune::tune
