#pragma once
// CostParams: the α–β–γ parameters of the closed-form cost model, per level of the cluster.
//
// A level is the kind of path a transfer takes: GPU to GPU inside a host, GPU to GPU across
// hosts (on the same rail), GPU to its own host's CPU, GPU to another host's CPU. For each,
// α is the latency of the path (the sum of its links' latencies: one "hop" of the algorithm)
// and bandwidth is its bottleneck link's, bytes/s per direction (β = 1/bandwidth). γ is the
// reduction cost per byte of the receiving device (1/reduce throughput). They come from the
// topology (cost_params_from_topology) or are set by hand (tests, the generic cluster).

#include "core/units.h"

namespace topotune::topo {
class Topology;
}

namespace topotune::algo {

struct RankLayout;

/// Latency and bottleneck bandwidth of one kind of path.
struct HopCost {
  Seconds latency{0};
  BytesPerSec bandwidth{1};
  /// α + bytes·β for `bytes` moving alone on the path.
  Seconds time(double bytes) const { return Seconds(latency.value + bytes / bandwidth.value); }
};

struct CostParams {
  HopCost intra;       ///< GPU -> GPU, same host
  HopCost inter;       ///< GPU -> GPU, different hosts, same local index (rail)
  HopCost gpu_to_cpu;  ///< GPU -> its own host's CPU (and back)
  HopCost net_to_cpu;  ///< GPU -> another host's CPU (and back)
  /// GPUs of a host behind one NIC (GPUs per NIC, at least 1): when every GPU of a host sends
  /// across hosts at once (halving-doubling, parameter server, hierarchical's rails), this
  /// many share the network path. 2 on p4d (8 GPUs, 4 NICs), 1 with a NIC per GPU.
  double nic_sharing = 1.0;
  BytesPerSec gpu_reduce{1e12};  ///< sum-reduction throughput of a GPU (γ = 1/this)
  BytesPerSec cpu_reduce{1e10};  ///< sum-reduction throughput of a host CPU

  double gamma_gpu() const { return 1.0 / gpu_reduce.value; }
  /// The inter-host hop when all GPUs of a host use the network at once.
  HopCost inter_all_gpus() const {
    return HopCost{inter.latency, inter.bandwidth / (nic_sharing < 1.0 ? 1.0 : nic_sharing)};
  }
  double gamma_cpu() const { return 1.0 / cpu_reduce.value; }
};

/// Parameters read from a built topology: each level's route (Topology::route) between
/// representative devices (rank 0 and its neighbours), and reduce_bandwidth of a GPU and a CPU.
/// Levels the topology does not have (one host, one GPU per host) copy the existing ones.
CostParams cost_params_from_topology(const topo::Topology& topology);

}  // namespace topotune::algo
