#pragma once
// ClusterShape: a handful of figures that summarise a cluster for the planner's compute model
// and reports: hosts, GPUs per host, per-GPU intra-host bandwidth, per-host network bandwidth,
// the latency of one intra-host and one inter-host step, the CPU's reduction rate, the GPU's
// peak FLOP/s. (Allreduce times come from the closed forms, the NCCL predictor and the flow
// simulator, not from these figures.)
//
// They are read from the Topology the topology module builds for the spec (2 hosts are enough:
// every host is the same), so link efficiencies and per-hop latencies are the topology
// module's model defaults (topology/model_defaults.h) or the --cluster file's, and agree with
// what the flow simulator sees. On top of the wire latency, each algorithm step pays a
// software overhead (kernel/proxy), and each collective a launch cost: ShapeDefaults, stated
// assumptions to be replaced by calibration.

#include <string>

#include "core/expected.h"
#include "core/units.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// Software costs on top of the topology's wire latencies (ASSUMPTIONS, docs/planner.md).
struct ShapeDefaults {
  Seconds intra_step_overhead{1e-6};  ///< per NVLink/PCIe step: kernel-side synchronisation
  Seconds net_step_overhead{8e-6};    ///< per network step: proxy thread + NIC doorbell;
                                      ///< with the topology's route this makes an EFA step
                                      ///< ~15 us, the usual osu_latency figure
  Seconds op_latency{10e-6};          ///< per collective: launch and setup
};

struct ClusterShape {
  std::string instance;
  std::string gpu_model;
  int hosts = 1;
  int gpus_per_host = 1;
  BytesPerSec intra_bw;       ///< per GPU, per direction, effective (GPU0 -> GPU1 bottleneck)
  BytesPerSec host_net_bw;    ///< per host, all NICs, per direction, effective
  BytesPerSec cpu_reduce_bw;  ///< host-memory sum throughput (parameter servers)
  Seconds intra_latency;      ///< one intra-host step: route latency + overhead
  Seconds net_latency;        ///< one inter-host step: route latency + overhead
  Seconds op_latency;
  double peak_flops = 0;  ///< dense bf16/fp16 tensor FLOP/s of one GPU
  bool nvswitch = false;

  int ranks() const { return hosts * gpus_per_host; }
};

/// Reads the shape of a cluster spec (builds a 2-host topology of it). Errors: a spec the
/// topology builder rejects.
Expected<ClusterShape> cluster_shape(const topo::ClusterSpec& spec, const ShapeDefaults& d = {});

}  // namespace topotune::tune
