#pragma once
// NcclSystem: what NCCL's tuner sees of a cluster, reduced to the figures its cost model uses:
// the GPUs' intra-node fabric and rate, NVLS capability, the NICs per node and their class,
// GPUDirect RDMA, the GPU generation, and the NCCL version (which decides what exists).
// Built from the topology's ClusterSpec (instance catalog figures), so every number traces
// back to data/instances/<name>.json.

#include <optional>
#include <string>

#include "algorithms/nccl/nccl_params.h"
#include "algorithms/nccl/nccl_version.h"
#include "core/expected.h"
#include "core/units.h"
#include "topology/cluster_spec.h"

namespace topotune::algo {

/// What the cluster's network fabric does to NCCL's network stage beyond the NIC figures:
/// placement, spine oversubscription and per-flow caps. The fitted parameters describe
/// non-blocking single-segment clusters (every log was measured on one); the flow simulator
/// says how much of that rate the algorithm's traffic keeps on the real fabric
/// (timing/fabric_probe.h). The defaults are a non-blocking fabric: no change.
struct NcclFabric {
  double ring_net_share = 1.0;   ///< share of the network rate a Ring's traffic keeps, (0, 1]
  double tree_net_share = 1.0;   ///< share a Tree's (and NVLSTree's network part) keeps, (0, 1]
  Seconds extra_net_latency{0};  ///< per network crossing, beyond a single segment's
};

struct NcclSystem {
  std::string instance;  ///< catalog name, for reports and the AWS plugin's platform rules
  int nodes = 1;
  int gpus_per_node = 1;
  int arch_row = 1;   ///< row of NCCL's tables: 0 Volta, 1 Ampere, 2 Hopper, 3 Blackwell
  int cc = 80;        ///< compute capability as NCCL compares it: 70, 75, 80, 90, 100
  bool sm90 = false;  ///< Hopper or newer (NVLS, LL128 rules)
  topo::IntraFabric intra = topo::IntraFabric::NvSwitch;  ///< the instance's GPU fabric
  BytesPerSec gpu_intra_bandwidth;  ///< one GPU's NVLink (or PCIe) rate, per direction, nominal
  int nvlinks_per_gpu = 0;          ///< NVLinks NCCL can count (NVSwitch or mesh)
  bool nvls = false;                ///< NVSwitch gen3+ with in-switch reduction
  int nics_per_node = 0;
  BytesPerSec nic_bandwidth;  ///< one NIC, per direction, nominal line rate
  NicClass nic_class = NicClass::InfiniBand;
  bool gpudirect_rdma = true;
  BytesPerSec pcie_bandwidth;      ///< a GPU's PCIe link, nominal; 0 = unknown
  double gpus_per_nic_switch = 1;  ///< GPUs sharing one NIC's PCIe switch
  bool amd_cpu = false;            ///< NCCL's CPU-vendor rules (llMaxBws row, net overhead)
  int gpus_per_thread = 1;         ///< nccl-tests -g: GPUs one thread launches in turn
  NcclFabric fabric;               ///< non-blocking unless set from the topology

  int ranks() const { return nodes * gpus_per_node; }
};

/// The class of the instance's NICs as the NCCL model sees them (the rule below).
NicClass nic_class_of(const topo::InstanceSpec& inst);

/// Summarises a cluster for the NCCL model. A multi-node NVLink domain
/// (InstanceSpec::nvlink_domain_hosts) is one node of all its hosts' GPUs and NICs, as NCCL's
/// MNNVL sees it; hosts that leave a partial last domain are Errc::Unsupported. EFA NICs count as
/// RDMA-write capable (EFA v2+) on Hopper and newer instances and as SRD send/receive (EFA v1)
/// before (instances.md §2.3).
Expected<NcclSystem> nccl_system_from_cluster(const topo::ClusterSpec& spec);

}  // namespace topotune::algo
