// make_uniform_topology: a generic cluster for tests and `--ranks N`.

#include <string>

#include "topology/topology.h"

namespace topotune::topo {

Expected<Topology> make_uniform_topology(int hosts, int gpus_per_host, BytesPerSec intra,
                                         BytesPerSec nic, Seconds intra_latency,
                                         Seconds net_latency) {
  if (gpus_per_host < 1)
    return fail(Errc::InvalidArgument,
                "gpus per host must be >= 1, got " + std::to_string(gpus_per_host));
  if (!(intra.value > 0) || !(nic.value > 0))
    return fail(Errc::InvalidArgument, "uniform topology bandwidths must be > 0");
  ClusterSpec spec;
  InstanceSpec& in = spec.instance;
  in.name = "uniform";
  in.vendor = "custom";
  in.num_gpus = gpus_per_host;
  in.gpu.model = "generic";
  in.fabric = IntraFabric::NvSwitch;
  in.nvlink_bandwidth_per_link = intra;
  in.nvlinks_per_gpu = 1;
  in.cpu_sockets = 1;
  in.num_nics = gpus_per_host;
  in.nic_bandwidth = nic;
  // One PCIe switch per GPU with its own NIC; PCIe as fast as the NIC and free of latency, so
  // an inter-host route's bottleneck is the NIC and its latency is net_latency.
  in.pcie_bandwidth = nic;
  for (int g = 0; g < gpus_per_host; ++g) in.pcie_switches.push_back(PcieSwitchSpec{0, {g}, {g}});
  in.gpudirect_rdma = true;
  in.transport = NetTransport::InfiniBand;
  spec.hosts = hosts;
  spec.placement = Placement::Cluster;
  // GPU -> NVSwitch -> GPU is two hops, NIC -> switch -> NIC too: half the latency each.
  spec.params(LinkKind::NvLink) = LinkClassParams{intra_latency / 2.0, 1.0};
  spec.params(LinkKind::Pcie) = LinkClassParams{Seconds(0), 1.0};
  spec.params(LinkKind::CpuInterconnect) = LinkClassParams{Seconds(0), 1.0};
  spec.params(LinkKind::Network) = LinkClassParams{net_latency / 2.0, 1.0};
  spec.params(LinkKind::Uplink) = LinkClassParams{Seconds(0), 1.0};
  spec.link_params_set = true;
  return build_topology(spec);
}

}  // namespace topotune::topo
