#pragma once
// NcclPredictor: predicts which (algorithm, protocol) NCCL picks for a collective of a given
// size, and how long it takes, on a cluster described by an NcclSystem.
//
// Selection follows NCCL's rule (src/graph/tuning.cc): every enabled (algorithm, protocol)
// gets a time, the minimum wins. Enable rules: NVLS needs an NVLS-capable NVSwitch and SM90+,
// one node (multi-node NVLS needs CollNet), NCCL >= 2.17; NVLSTree needs NVLS, several nodes,
// NCCL >= 2.18; NVLS variants run Simple only; Tree is allreduce only; LL128 needs NCCL >= 2.5,
// NVLink inside the node and, across nodes, GPUDirect RDMA on an RDMA-write NIC (IB, EFA v2+);
// NCCL_ALGO / NCCL_PROTO restrictions and NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS come in
// through NcclOptions.
//
// Time of one candidate = base latency + the critical path of the first pipeline unit +
// (units - 1) x the bottleneck stage's time per unit. A unit is min(chunk, data per channel
// per step); a stage is a hop class (NVLink, NVLS, network) with a latency and a per-channel
// rate derived from the link rates of the topology times fitted efficiencies. Ring: 2(n-1)
// steps per loop, each loop moves n units per channel; Tree/NVLSTree: a pipeline through the
// intra-node chain (or the NVSwitch) and log2(nodes) network levels. This reproduces the
// small-message latency floor, the slow ramp (per-step latency exposed while units are small),
// NVLS busbw above the NVLink rate, and the 2-node tree inflation (a tree sends S per node
// over the network where a ring sends 2(n-1)/n S).

#include <string>
#include <vector>

#include "algorithms/nccl/nccl_params.h"
#include "algorithms/nccl/nccl_system.h"
#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "core/units.h"

namespace topotune::algo {

/// What the user restricts, as NCCL's environment does.
struct NcclOptions {
  NcclVersion version;            ///< unknown = latest
  std::vector<NcclAlgo> algos;    ///< NCCL_ALGO; empty = all
  std::vector<NcclProto> protos;  ///< NCCL_PROTO; empty = all
  /// NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS (0 = unset): bound the Ring/Tree channel count
  /// NCCL's search found (min duplicates channels, max drops them), within [1, MAXCHANNELS].
  /// NVLS algorithms keep their own count (NCCL_NVLS_NCHANNELS).
  int min_channels = 0;
  int max_channels = 0;
};

/// One (algorithm, protocol) pair evaluated at one size.
struct NcclCandidate {
  NcclAlgo algo = NcclAlgo::Ring;
  NcclProto proto = NcclProto::Simple;
  bool enabled = false;
  std::string why_disabled;  ///< the enable rule that removed it
  int channels = 0;
  Seconds time{0};
  Seconds latency{0};      ///< base + first unit's path
  std::string bottleneck;  ///< "NVLink", "NVLS", "network", "PCIe", "latency"
};

/// The prediction at one size: the chosen candidate and, with explain, all of them.
struct NcclPrediction {
  Bytes bytes{0};
  NcclCandidate chosen;
  std::vector<NcclCandidate> candidates;  ///< filled only when asked to explain
  double algbw_GBps = 0;
  double busbw_GBps = 0;
};

class NcclPredictor {
 public:
  NcclPredictor(NcclSystem system, NcclModelParams params, NcclOptions options);

  /// Errors when the collective is not modelled or every candidate is disabled.
  Expected<NcclPrediction> predict(sched::Collective c, Bytes bytes, bool explain = false) const;

  /// Time of one candidate; the candidate is disabled (with the reason) if NCCL would not run it.
  NcclCandidate evaluate(sched::Collective c, Bytes bytes, NcclAlgo algo, NcclProto proto) const;

  const NcclSystem& system() const { return system_; }
  const NcclModelParams& params() const { return params_; }

 private:
  std::string disabled_reason(sched::Collective c, NcclAlgo a, NcclProto p) const;
  /// The channel count NCCL's topology search finds for `a` (no NCCL_*_NCHANNELS).
  int searched_channels(NcclAlgo a) const;
  /// searched_channels bounded by NcclOptions' min/max.
  int channels(NcclAlgo a) const;

  NcclSystem system_;
  NcclModelParams params_;
  NcclOptions options_;
};

}  // namespace topotune::algo
