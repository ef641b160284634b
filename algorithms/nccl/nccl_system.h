#pragma once
// NcclSystem: what NCCL's tuner sees of a cluster, reduced to the figures its cost model uses:
// the GPUs' intra-node fabric and rate, NVLS capability, the NICs per node and their class,
// GPUDirect RDMA, the GPU generation, and the NCCL version (which decides what exists).
// Built from the topology's ClusterSpec (instance catalog figures), so every number traces
// back to data/instances/<name>.json.

#include <optional>
#include <string>

#include "algorithms/nccl/nccl_params.h"
#include "core/expected.h"
#include "core/units.h"
#include "topology/cluster_spec.h"

namespace topotune::algo {

/// An NCCL release, "2.23.4". Unknown (default) means "recent": everything is available.
struct NcclVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  bool known = false;
  /// True when unknown or >= major.minor.
  bool at_least(int ma, int mi) const {
    return !known || major > ma || (major == ma && minor >= mi);
  }
  std::string str() const;  ///< "2.23.4" or "latest"
};

/// Parses "2.23.4", "2.23", "2.9.9+cuda11.2" (suffix ignored). Errors name the text.
Expected<NcclVersion> parse_nccl_version(const std::string& text);

/// What the cluster's network fabric does to NCCL's network stage beyond the NIC figures:
/// placement, spine oversubscription and per-flow caps. The fitted parameters describe
/// non-blocking single-segment clusters (every log was measured on one); the flow simulator
/// says how much of that rate the algorithm's traffic keeps on the real fabric
/// (autotune/fabric_probe.h). The defaults are a non-blocking fabric: no change.
struct NcclFabric {
  double ring_net_share = 1.0;   ///< share of the network rate a Ring's traffic keeps, (0, 1]
  double tree_net_share = 1.0;   ///< share a Tree's (and NVLSTree's network part) keeps, (0, 1]
  Seconds extra_net_latency{0};  ///< per network crossing, beyond a single segment's
};

struct NcclSystem {
  std::string instance;  ///< catalog name, for reports
  int nodes = 1;
  int gpus_per_node = 1;
  int arch_row = 1;   ///< row of NCCL's tables: 0 Volta, 1 Ampere, 2 Hopper, 3 Blackwell
  bool sm90 = false;  ///< Hopper or newer (NVLS, LL128 rules)
  topo::IntraFabric intra = topo::IntraFabric::NvSwitch;  ///< the instance's GPU fabric
  BytesPerSec gpu_intra_bandwidth;  ///< one GPU's NVLink (or PCIe) rate, per direction, nominal
  bool nvls = false;                ///< NVSwitch gen3+ with in-switch reduction
  int nics_per_node = 0;
  BytesPerSec nic_bandwidth;  ///< one NIC, per direction, nominal line rate
  NicClass nic_class = NicClass::InfiniBand;
  bool gpudirect_rdma = true;
  int gpus_per_thread = 1;  ///< nccl-tests -g: GPUs one thread launches in turn
  NcclFabric fabric;        ///< non-blocking unless set from the topology

  int ranks() const { return nodes * gpus_per_node; }
};

/// Summarises a cluster for the NCCL model. EFA NICs count as RDMA-write capable (EFA v2+)
/// on Hopper and newer instances and as SRD send/receive (EFA v1) before (instances.md §2.3).
Expected<NcclSystem> nccl_system_from_cluster(const topo::ClusterSpec& spec);

}  // namespace topotune::algo
