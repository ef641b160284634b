#pragma once
// Hand-built systems for the NCCL model tests, from the figures of
// docs/reference/instances.md (§4.1 p4d, §5.1 p5, §7.1 DGX A100, §7.2 DGX H100), so the
// tests need neither the catalog nor the topology library.

#include "algorithms/nccl/nccl_system.h"

namespace topotune::algo::testing {

inline topo::InstanceSpec nvswitch_instance(const char* name, topo::GpuArch arch, int links,
                                            bool nvls, int nics, double nic_gbps,
                                            topo::NetTransport t, int efa_version, double pcie_GBps,
                                            const char* cpu) {
  topo::InstanceSpec s;
  s.name = name;
  s.num_gpus = 8;
  s.gpu.arch = arch;
  s.fabric = topo::IntraFabric::NvSwitch;
  s.nvlink_bandwidth_per_link = gbyte_per_sec(25);
  s.nvlinks_per_gpu = links;
  s.nvls = nvls;
  s.num_nics = nics;
  s.nic_bandwidth = gbit_per_sec(nic_gbps);
  s.transport = t;
  s.efa_version = efa_version;
  s.gpudirect_rdma = true;
  s.pcie_bandwidth = gbyte_per_sec(pcie_GBps);
  s.cpu_model = cpu;
  return s;
}

inline NcclSystem system_of(const topo::InstanceSpec& inst, int nodes) {
  topo::ClusterSpec spec;
  spec.instance = inst;
  spec.hosts = nodes;
  return nccl_system_from_cluster(spec).value();
}

/// p4d.24xlarge: 8 A100, 12 x 25 GB/s NVLink, 4 x 100 Gbps EFA v1 (2 GPUs per NIC switch,
/// PCIe Gen3 in AWS's topology file), GPUDirect RDMA, Intel CPUs.
inline NcclSystem p4d(int nodes) {
  return system_of(nvswitch_instance("p4d.24xlarge", topo::GpuArch::Ampere, 12, false, 4, 100,
                                     topo::NetTransport::Efa, 1, 15.75, "Intel Xeon 8275CL"),
                   nodes);
}
/// p5.48xlarge: 8 H100, 18 x 25 GB/s NVLink, NVLS, 32 x 100 Gbps EFA v2, PCIe Gen5, AMD CPUs.
inline NcclSystem p5(int nodes) {
  return system_of(nvswitch_instance("p5.48xlarge", topo::GpuArch::Hopper, 18, true, 32, 100,
                                     topo::NetTransport::Efa, 2, 63, "AMD EPYC"),
                   nodes);
}
/// p5en.48xlarge: 8 H200, 18 x 25 GB/s NVLink, NVLS, 16 x 200 Gbps EFA v3, PCIe Gen5, Intel.
inline NcclSystem p5en(int nodes) {
  return system_of(nvswitch_instance("p5en.48xlarge", topo::GpuArch::Hopper, 18, true, 16, 200,
                                     topo::NetTransport::Efa, 3, 63, "Intel Xeon 4th Gen"),
                   nodes);
}
/// DGX A100: 8 A100, 8 x 200 Gbps InfiniBand, PCIe Gen4, AMD CPUs.
inline NcclSystem dgx_a100(int nodes) {
  return system_of(nvswitch_instance("dgx-a100", topo::GpuArch::Ampere, 12, false, 8, 200,
                                     topo::NetTransport::InfiniBand, 0, 31.5, "AMD EPYC 7742"),
                   nodes);
}
/// DGX H100: 8 H100, NVLS, 8 x 400 Gbps InfiniBand, PCIe Gen5, Intel CPUs.
inline NcclSystem dgx_h100(int nodes) {
  return system_of(nvswitch_instance("dgx-h100", topo::GpuArch::Hopper, 18, true, 8, 400,
                                     topo::NetTransport::InfiniBand, 0, 63, "Intel Xeon 8480C"),
                   nodes);
}

/// One H100 per node with one 400 Gbps InfiniBand NIC (what PAT runs on).
inline topo::InstanceSpec h100_one_gpu_per_node() {
  topo::InstanceSpec inst =
      nvswitch_instance("h100-1gpu", topo::GpuArch::Hopper, 18, false, 1, 400,
                        topo::NetTransport::InfiniBand, 0, 63, "Intel Xeon 8480C");
  inst.num_gpus = 1;
  return inst;
}

}  // namespace topotune::algo::testing
