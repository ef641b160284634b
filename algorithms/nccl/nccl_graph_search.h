#pragma once
// What NCCL's topology search (src/graph/search.cc ncclTopoCompute) finds on a node, and the
// channel counts init derives from it (src/init.cc, src/graph/connect.cc ncclTopoPostset).
//
// The search tries per-channel speeds from a release's speed array, highest first, and keeps
// the solution with the most bandwidth (channels x speed); a channel consumes its speed on
// every link it crosses, so the count of channels at a speed is what the links can carry. The
// nodes modeled here are symmetric (g GPUs on an NVSwitch, an NVLink mesh or PCIe; k NET
// devices, each local to g/k GPUs behind PCIe), which lets the links' budgets be counted in
// closed form instead of NCCL's recursive path search: ring channels at speed s are limited by
// floor(NIC bw / s) per NIC, floor(PCIe bw / s) per GPU and the NVLink bandwidth each GPU
// spends per channel. Then, as NCCL does: the search stops once channels x speed reaches the
// GPU's total bandwidth or the next speed is below half the best; channels are duplicated
// (ncclTopoDupChannels); pass 2 raises the speed (rings) or bwIntra (trees, up to 2 x bwInter)
// or bwInter (NVLS) while the channel count holds; the communicator runs twice the searched
// channels (Postset) plus the sm90 doubling and the NVLS aggregation of its release.

#include "algorithms/nccl/nccl_version.h"
#include "topology/instance_spec.h"

namespace topotune::algo {

/// NCCL's view of one node: its link bandwidths as NCCL computes them (not the catalog's).
struct NcclNodeView {
  int gpus = 1;
  int cc = 80;  ///< 70, 80, 90, 100
  topo::IntraFabric fabric = topo::IntraFabric::NvSwitch;
  double nvlink_bw = 0;     ///< one GPU's NVLink bandwidth to the switch (or its peers), GB/s
  double pci_bw = 24;       ///< one GPU's (and NIC's) PCIe link, GB/s
  int nets = 0;             ///< NET devices NCCL sees (after a plugin merges rails)
  double net_bw = 0;        ///< one NET device, GB/s (Mbps / 8000)
  double gpus_per_net = 1;  ///< GPUs sharing one NET's PCIe switch
};

/// One search result (ncclTopoGraph) after the all-rank minimum.
struct NcclGraph {
  int channels = 0;
  double bw_intra = 0;          ///< GB/s per channel within the node
  double bw_inter = 0;          ///< GB/s per channel to the NIC
  bool intra_nvlink = true;     ///< typeIntra is NVLink (else PCIe paths)
  bool inter_local = true;      ///< typeInter <= PXB (GPUDirect RDMA reach)
  bool tree_pattern = false;    ///< NCCL_TOPO_PATTERN_TREE (one GPU per NIC switch)
  double latency_inter_us = 0;  ///< the net plugin's reported latency (latencyInter)
};

struct NcclGraphs {
  NcclGraph ring, tree, nvls;  ///< nvls.channels == 0: no NVLS graph
  int comm_channels = 0;       ///< comm->nChannels the kernels run on (ring and tree)
  int coll_channels = 0;       ///< comm->collChannels (before the NVLS aggregation)
  int nvls_channels = 0;       ///< comm->nvlsChannels, 0 without NVLS
};

/// The search on `node` for a communicator of `nodes` nodes under `release`. `nvls`: the node
/// supports NVLS (NVSwitch gen3+, SM90+, > 2 GPUs); `gdr`: GPUDirect RDMA to the NICs (else
/// the NIC is farther than PXB); `latency_inter_us`: what the net plugin reports.
NcclGraphs nccl_search(const NcclNodeView& node, int release, int nodes, bool nvls, bool gdr,
                       double latency_inter_us);

}  // namespace topotune::algo
