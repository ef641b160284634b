#pragma once
// NcclPredictor: what NCCL runs for a collective of a given size on a cluster, and how long it
// takes there.
//
// The choice is NCCL's own, reproduced release by release: its topology search on the node
// (nccl_graph_search.h), its cost model and enable rules (nccl_tuning_model.h), the region
// tuner AWS images load on p5-class instances (aws_ofi_tuner.h), the environment the AWS net
// plugin sets (NCCL_PROTO=simple on EFA without 128-byte write ordering, its reported network
// latency, its NVLS chunk sizes), and the channels it launches for the size (nccl_enqueue.h).
// The time is physical (nccl_physical_time.h): NCCL's own estimate is only how it chooses.

#include <string>
#include <vector>

#include "algorithms/nccl/aws_ofi_tuner.h"
#include "algorithms/nccl/nccl_enqueue.h"
#include "algorithms/nccl/nccl_params.h"
#include "algorithms/nccl/nccl_system.h"
#include "algorithms/nccl/nccl_tuning_model.h"
#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "core/units.h"

namespace topotune::algo {

/// Whether the AWS region tuner decides (it does on p5/p5e/p5en past two nodes when NCCL can
/// load it: NCCL 2.21+ finds it in the net plugin; aws-ofi-nccl 1.16.0+ bundles it).
enum class NcclTunerMode { Auto, None, AwsRegion };

/// What the user restricts, as NCCL's environment does.
struct NcclOptions {
  NcclVersion version;            ///< unknown = the latest modeled release
  std::vector<NcclAlgo> algos;    ///< NCCL_ALGO; empty = all
  std::vector<NcclProto> protos;  ///< NCCL_PROTO; empty = all
  /// NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS (0 = unset): bound comm->nChannels (max drops
  /// channels, min duplicates them), within [1, MAXCHANNELS]. NVLS keeps its own count.
  int min_channels = 0;
  int max_channels = 0;
  NcclTunerMode tuner = NcclTunerMode::Auto;
};

/// One (algorithm, protocol) pair evaluated at one size.
struct NcclCandidate {
  NcclAlgo algo = NcclAlgo::Ring;
  NcclProto proto = NcclProto::Simple;
  bool enabled = false;
  std::string why_disabled;  ///< the enable rule that removed it
  int channels = 0;          ///< channels NCCL launches for this size
  Seconds time{0};           ///< physical time
  Seconds latency{0};        ///< its size-independent part
  Seconds nccl_estimate{0};  ///< NCCL's own cost-model time, what it chooses by
  /// "NVLink", "NVLS", "network", "engine", "window", "proxy", "TCPX sleep", "latency"
  std::string bottleneck;
};

/// The prediction at one size: the chosen candidate and, with explain, all of them.
struct NcclPrediction {
  Bytes bytes{0};
  NcclCandidate chosen;
  std::string chosen_by;                  ///< "NCCL's cost model", "AWS region tuner"
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
  /// `tuner_channels` > 0: the channel count a tuner plugin set with this pick.
  NcclCandidate evaluate(sched::Collective c, Bytes bytes, NcclAlgo algo, NcclProto proto,
                         int tuner_channels = 0) const;

  const NcclSystem& system() const { return system_; }
  const NcclModelParams& params() const { return params_; }
  /// The search and channel counts the model emulated (for reports and tests).
  const NcclGraphs& graphs() const { return launch_.graphs; }
  /// The release the model follows (the given one, or the latest modeled).
  int release() const { return launch_.release; }

 private:
  const NcclTuningTable& table(sched::Collective c) const;

  NcclSystem system_;
  NcclModelParams params_;
  NcclOptions options_;
  NcclTuningInputs tuning_;
  NcclLaunchInputs launch_;
  AwsTunerPlatform tuner_ = AwsTunerPlatform::None;
  std::vector<NcclTuningTable> tables_;  ///< per collective, indexed by sched::Collective
};

/// NCCL's view of a node of `system` under `release`: the link bandwidths NCCL computes, and
/// the NET devices after the AWS plugin merges p5-class rails (one 400 Gb/s device per GPU).
NcclNodeView nccl_node_view(const NcclSystem& system, int release);

}  // namespace topotune::algo
