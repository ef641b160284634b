#pragma once
// What NCCL's topology search works with, by release: the bandwidth it assigns one NVLink
// (src/graph/topo.h), the NVLinks it counts per GPU (src/graph/xml.cc), the per-channel speeds
// it tries (src/graph/search.cc speedArrayIntra/Inter and the sm90/sm100 arrays) and the
// channel limit (MAXCHANNELS, src/include/device.h). Copied, never fitted.

#include <vector>

namespace topotune::algo {

/// GB/s NCCL assigns one NVLink of a GPU of compute capability `cc` (70, 80, 90, 100).
double nccl_nvlink_bw_per_link(int release, int cc);
/// The most NVLinks to the NVSwitch NCCL counts per GPU.
int nccl_max_nvlinks(int release, int cc);
/// The per-channel speeds (GB/s, descending) the search tries: `inter` across nodes (a NIC in
/// the communicator), otherwise within one node.
std::vector<double> nccl_search_speeds(int release, int cc, bool inter);
/// MAXCHANNELS: 32 before v2.25.1-1, 64 from it.
int nccl_max_channels(int release);
/// PCI bandwidth NCCL computes from a link's speed x width (width * speed / 80, kvDictPciGen):
/// Gen3 x16 12, Gen4 x16 24, Gen5 x16 48 GB/s. `nominal_GBps` is the catalog's per-direction
/// rate (15.75, 31.5, 63); unknown (<= 0) means Gen4 on Ampere, Gen5 on Hopper and newer.
double nccl_pci_bw(double nominal_GBps, int cc);

}  // namespace topotune::algo
