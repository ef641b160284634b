#pragma once
// The tuner plugin AWS images load on p5, p5e and p5en (aws/aws-ofi-nccl, the "region" tuner of
// src/tuner/nccl_ofi_regions.cpp, identical vertex lists v1.10.0-aws .. v1.21.1 for p5/p5e).
// For an allreduce of nBytes on nRanks it looks the point (log2 nBytes, log2 nRanks) up in a
// list of polygons, each naming an (algorithm, protocol); the first polygon containing the
// point (its edges included) decides, and NCCL runs that choice. All-gather and reduce-scatter
// have lists of their own on P5en (Ring, the protocol by region; nBytes is the whole buffer,
// NCCL's ncclFuncMaxSendRecvCount); P5/P5e have them only for one GPU per node (PAT regions
// with the plugin's own PAT channel counts: not transcribed), so NCCL's model decides there. It is
// active with more than two nodes (v1.14.0+) and 8 GPUs per node; elsewhere NCCL's own model
// decides.

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "algorithms/nccl/nccl_params.h"
#include "algorithms/schedule/collective_spec.h"

namespace topotune::algo {

/// The platforms the region tuner has tables for (8 GPUs per node).
enum class AwsTunerPlatform { None, P5, P5en };

/// The platform of a catalog instance name ("p5.48xlarge" -> P5), None if the tuner has none.
AwsTunerPlatform aws_tuner_platform(const std::string& instance);

/// The (algorithm, protocol) the tuner sets for `collective` on `bytes` (the whole buffer), or
/// nullopt when it leaves NCCL's choice (no region, two nodes or fewer, not 8 GPUs per node). A
/// region whose choice NCCL has disabled (`enabled` false: NVLSTree without NVLS support, a
/// protocol NCCL_PROTO excludes) is skipped, as the plugin skips NCCL_ALGO_PROTO_IGNORE entries.
std::optional<std::pair<NcclAlgo, NcclProto>> aws_region_tuner_choice(
    AwsTunerPlatform platform, sched::Collective collective, int ranks, int nodes, double bytes,
    const std::function<bool(NcclAlgo, NcclProto)>& enabled);

}  // namespace topotune::algo
