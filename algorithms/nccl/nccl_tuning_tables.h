#pragma once
// NCCL's tuning constants by release: the tables of ncclTopoTuneModel / ncclTopoGetAlgoTime
// (NVIDIA/nccl src/graph/tuning.cc) as each release ships them, from v2.5.6-1 to v2.30.7-1.
// Each accessor takes a release code (nccl_version.h) and returns what that release used;
// the .cc cites the tag at which every value changed (checked tag by tag; docs/nccl-model.md
// has the same history as tables). These are copied, never fitted.

#include "algorithms/nccl/nccl_params.h"

namespace topotune::algo {

/// The hardware classes of NCCL's hwLatencies table.
enum class NcclHw { NvLink, Pci, Net };

/// baseLatencies[algo][proto], us.
double nccl_base_latency_us(int release, NcclAlgo a, NcclProto p);
/// hwLatencies[hw][algo][proto], us per hop.
double nccl_hw_latency_us(int release, NcclHw hw, NcclAlgo a, NcclProto p);

/// llMaxBws[row][scale], GB/s busbw. row: the GPU generation on one node, the CPU vendor row
/// across nodes (0 Intel, 1 AMD); scale: 0 one node, 1 two nodes, 2 more.
double nccl_ll_max_bw(int release, int row, int scale);
/// perChMaxTreeBws[arch][scale], GB/s per searched channel (busbw).
double nccl_per_channel_max_tree_bw(int release, int arch, int scale);
/// perChMaxRingLL128Bws / perChMaxTreeLL128Bws[arch][scale] (and the older ll128MaxBwPerCh).
double nccl_per_channel_max_ll128_bw(int release, int arch, int scale, bool tree);
/// perChMaxNVLSTreeBws[arch][scale] (v2.28.3-1 on).
double nccl_per_channel_max_nvlstree_bw(int release, int arch, int scale);
/// nvlsEfficiency[arch] (v2.28.3-1 tuning.cc): Hopper 0.85, Blackwell 0.74, none before.
double nccl_nvls_efficiency(int arch);
/// treeCorrectionFactor[proto][log2(bytes / 64)] of the release; 1 outside the table.
double nccl_tree_correction(int release, NcclProto p, int log_size);

}  // namespace topotune::algo
