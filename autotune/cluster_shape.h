#pragma once
// ClusterShape: the handful of figures the planner's closed forms and compute model need,
// read once from a ClusterSpec (hosts, GPUs per host, per-GPU intra-host bandwidth, per-host
// network bandwidth, latencies, GPU peak FLOP/s). Link figures are effective: nominal x the
// link class efficiency. Where the spec leaves latencies/efficiencies to the topology
// builder's defaults (link_params_set false), the fallbacks below are used and named in the
// plan, so a reader sees what was assumed.

#include <string>

#include "core/units.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// Fallback model parameters (stated assumptions; calibration or --cluster overrides them).
struct ShapeDefaults {
  Seconds intra_latency{1e-6};   ///< one NVLink/PCIe step (NCCL's NVLink hw latency ~0.6-1 us)
  Seconds net_latency{15e-6};    ///< one network step (EFA/IB, incl. proxy; NCCL NET ~14 us)
  Seconds op_latency{10e-6};     ///< fixed cost of launching one collective
  double intra_efficiency = 0.8; ///< NVLink busbw / nominal seen in nccl-tests (~230 of 300)
  double net_efficiency = 0.85;  ///< EFA/IB busbw / nominal (p4d ~42 of 50 GB/s)
};

struct ClusterShape {
  std::string instance;
  std::string gpu_model;
  int hosts = 1;
  int gpus_per_host = 1;
  BytesPerSec intra_bw;   ///< per GPU, per direction, effective
  BytesPerSec host_net_bw;  ///< per host, all NICs, per direction, effective
  BytesPerSec cpu_reduce_bw;  ///< host-memory sum throughput (parameter servers)
  Seconds intra_latency;
  Seconds net_latency;
  Seconds op_latency;
  double peak_flops = 0;  ///< dense bf16/fp16 tensor FLOP/s of one GPU
  bool nvswitch = false;

  int ranks() const { return hosts * gpus_per_host; }
};

/// Reads the shape of a cluster spec.
ClusterShape cluster_shape(const topo::ClusterSpec& spec, const ShapeDefaults& d = {});

}  // namespace topotune::tune
