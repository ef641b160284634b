#pragma once
// In-memory instances for the builder/routing tests, written from instances.md (sections 3.1,
// 4.1, 5.1, 6.3) so these tests do not depend on the JSON loader or the catalog files.

#include "topology/cluster_spec.h"
#include "topology/instance_spec.h"

namespace topotune::topo::testing {

/// p4d.24xlarge: 8 A100, NVSwitch 12 x 25 GB/s, 4 PCIe switches (2 GPUs + 1 NIC each, 2 per
/// socket), 4 x 100 Gbps EFA with GPUDirect RDMA.
InstanceSpec p4d_like();
/// p3.16xlarge: 8 V100, hybrid cube-mesh (instances.md 3.1 pair map), 1 x 25 Gbps TCP, no GDR,
/// no PCIe switches published (GPUs 0-3 on socket 0, 4-7 on socket 1).
InstanceSpec p3_like();
/// p5.48xlarge: 8 H100, NVSwitch 18 x 25 GB/s, 8 PCIe switches with 1 GPU + 4 NICs each.
InstanceSpec p5_like();
/// g5.12xlarge: 4 A10G on one socket's root complex, no switch, 1 x 40 Gbps EFA, no GDR.
InstanceSpec g5_like();

/// A ClusterSpec with the builder's defaults for `placement` (oversubscription 4 off cluster).
ClusterSpec cluster_of(const InstanceSpec& inst, int hosts, Placement placement);

}  // namespace topotune::topo::testing
