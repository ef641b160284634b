#include "tests/topology/test_instances.h"

namespace topotune::topo::testing {

InstanceSpec p4d_like() {
  InstanceSpec s;
  s.name = "p4d-test";
  s.vendor = "aws";
  s.num_gpus = 8;
  s.gpu.model = "A100-SXM4-40GB";
  s.gpu.arch = GpuArch::Ampere;
  s.gpu.memory_bandwidth = gbyte_per_sec(1555);
  s.fabric = IntraFabric::NvSwitch;
  s.nvlink_bandwidth_per_link = gbyte_per_sec(25);
  s.nvlinks_per_gpu = 12;
  s.cpu_sockets = 2;
  s.pcie_bandwidth = gbyte_per_sec(15.75);
  s.pcie_switches = {{0, {0, 1}, {0}}, {0, {2, 3}, {1}}, {1, {4, 5}, {2}}, {1, {6, 7}, {3}}};
  s.gpu_socket = {0, 0, 0, 0, 1, 1, 1, 1};
  s.nic_socket = {0, 0, 1, 1};
  s.num_nics = 4;
  s.nic_bandwidth = gbit_per_sec(100);
  s.gpudirect_rdma = true;
  s.transport = NetTransport::Efa;
  return s;
}

InstanceSpec p3_like() {
  InstanceSpec s;
  s.name = "p3-test";
  s.vendor = "aws";
  s.num_gpus = 8;
  s.gpu.model = "V100-SXM2-16GB";
  s.gpu.arch = GpuArch::Volta;
  s.fabric = IntraFabric::NvLinkMesh;
  s.nvlink_bandwidth_per_link = gbyte_per_sec(25);
  s.nvlinks_per_gpu = 6;
  // instances.md 3.1: NV2 pairs, then NV1 pairs.
  s.nvlink_pairs = {{0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 5, 2}, {2, 3, 2}, {4, 7, 2},
                    {5, 6, 2}, {6, 7, 2}, {0, 1, 1}, {0, 2, 1}, {1, 3, 1}, {2, 6, 1},
                    {3, 7, 1}, {4, 5, 1}, {4, 6, 1}, {5, 7, 1}};
  s.cpu_sockets = 2;
  s.gpu_socket = {0, 0, 0, 0, 1, 1, 1, 1};
  s.nic_socket = {0};
  s.num_nics = 1;
  s.nic_bandwidth = gbit_per_sec(25);
  s.gpudirect_rdma = false;
  s.transport = NetTransport::Tcp;
  return s;
}

InstanceSpec p5_like() {
  InstanceSpec s = p4d_like();
  s.name = "p5-test";
  s.nvlinks_per_gpu = 18;
  s.pcie_switches.clear();
  s.nic_socket.clear();
  for (int g = 0; g < 8; ++g) {
    s.pcie_switches.push_back({g / 4, {g}, {4 * g, 4 * g + 1, 4 * g + 2, 4 * g + 3}});
    for (int k = 0; k < 4; ++k) s.nic_socket.push_back(g / 4);
  }
  s.num_nics = 32;
  return s;
}

InstanceSpec g5_like() {
  InstanceSpec s;
  s.name = "g5-test";
  s.vendor = "aws";
  s.num_gpus = 4;
  s.gpu.model = "A10G";
  s.fabric = IntraFabric::PcieOnly;
  s.cpu_sockets = 1;
  s.gpu_socket = {0, 0, 0, 0};
  s.nic_socket = {0};
  s.num_nics = 1;
  s.nic_bandwidth = gbit_per_sec(40);
  s.transport = NetTransport::Efa;
  return s;
}

ClusterSpec cluster_of(const InstanceSpec& inst, int hosts, Placement placement) {
  ClusterSpec c;
  c.instance = inst;
  c.hosts = hosts;
  c.placement = placement;
  if (placement != Placement::Cluster) c.fabric.oversubscription = 4.0;
  return c;
}

}  // namespace topotune::topo::testing
