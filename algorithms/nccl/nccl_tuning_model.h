#pragma once
// NCCL's own cost model (src/graph/tuning.cc ncclTopoTuneModel and ncclTopoGetAlgoTime) as a
// given release computes it: per (algorithm, protocol) a bandwidth (algorithm bandwidth, GB/s)
// and a latency (us) from the searched graphs and the release's constant tables, the enable
// rules (NCCL_ALGO / NCCL_PROTO, LL128's path rules, NVLS support), and the time
// latency + bytes / bandwidth with the tree correction factors and the ring plateau factor.
// NCCL runs the (algorithm, protocol) with the lowest such time; this reproduces that choice.
// The time itself is NCCL's estimate, not a prediction (nccl_physical_time.h predicts).

#include <array>
#include <vector>

#include "algorithms/nccl/nccl_graph_search.h"
#include "algorithms/nccl/nccl_params.h"
#include "algorithms/schedule/collective_spec.h"

namespace topotune::algo {

/// What ncclTopoTuneModel reads of the communicator.
struct NcclTuningInputs {
  int release = kLatestModeledRelease;
  int ranks = 1;
  int nodes = 1;
  int cc = 80;           ///< minimum compute capability
  bool amd_cpu = false;  ///< CPU vendor row of llMaxBws and the network overhead
  NcclGraphs graphs;
  bool nvls_support = false;
  /// The net plugin's netDeviceType is not NCCL_NET_DEVICE_HOST (GPUDirect-TCPX's unpack
  /// kernel), which rules PAT out.
  bool net_device_offload = false;
  std::vector<NcclAlgo> algos;    ///< NCCL_ALGO; empty = all
  std::vector<NcclProto> protos;  ///< NCCL_PROTO; empty = all (LL128 by its default rule)
};

/// The tables ncclTopoTuneModel fills for one collective; bandwidth 0 = disabled.
struct NcclTuningTable {
  AlgoProtoTable<double> bandwidth_GBps{};  ///< algorithm bandwidth
  AlgoProtoTable<double> latency_us{};
  std::array<std::array<const char*, kNumNcclProtos>, kNumNcclAlgos> why_disabled{};
};

/// The table for collective `c` (allreduce, allgather, reduce_scatter, broadcast).
NcclTuningTable nccl_tune(const NcclTuningInputs& in, sched::Collective c);

/// NCCL's estimated time (us) of (a, p) at `bytes`, or a negative value when disabled.
double nccl_algo_time_us(const NcclTuningInputs& in, const NcclTuningTable& t, sched::Collective c,
                         NcclAlgo a, NcclProto p, double bytes);

/// The GPU generation row of NCCL's tables for compute capability `cc` under `release`
/// (0 Volta, 1 Ampere, 2 Hopper, 3 Blackwell; before v2.15.1-1 Hopper used the Volta row).
int nccl_arch_index(int release, int cc);

}  // namespace topotune::algo
