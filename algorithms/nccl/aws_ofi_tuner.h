#pragma once
// The tuner plugin AWS images load on p5, p5e, p5en, p6-b200 and p6-b300 (aws/aws-ofi-nccl, the
// "region" tuner of src/tuner/nccl_ofi_regions.cpp; p5/p5e's 8-GPU lists identical from
// v1.10.0-aws to v1.21.1, every table here v1.21.1's). For a collective of nBytes (the whole
// buffer: NCCL's ncclFuncMaxSendRecvCount) on nRanks it looks the point (log2 nBytes, log2
// nRanks) up in the list of polygons of its platform, GPUs per node and collective, each naming
// an (algorithm, protocol); the first polygon containing the point (its edges included)
// decides, and NCCL runs that choice. Lists exist for 8 GPUs per node on every platform
// (allreduce; all-gather and reduce-scatter except on p5/p5e), 2 GPUs per node on p5/p5e
// (allreduce) and one GPU per node on all (with PAT for all-gather and reduce-scatter). It is
// active with more than two nodes (v1.14.0+); elsewhere, or where no region holds the point,
// NCCL's own model decides. On p6-b200 it also sets the channel count of two of its picks
// (aws_region_tuner_channels).

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "algorithms/nccl/nccl_params.h"
#include "algorithms/schedule/collective_spec.h"

namespace topotune::algo {

/// The platforms the region tuner has tables for.
enum class AwsTunerPlatform { None, P5, P5en, P6, P6B300 };

/// The platform of a catalog instance name ("p5.48xlarge" -> P5), None if the tuner has none.
AwsTunerPlatform aws_tuner_platform(const std::string& instance);

/// The (algorithm, protocol) the tuner sets for `collective` on `bytes` (the whole buffer), or
/// nullopt when it leaves NCCL's choice (no region holds the point, two nodes or fewer). A
/// region whose choice NCCL has disabled (`enabled` false: NVLSTree without NVLS support, a
/// protocol NCCL_PROTO excludes) is skipped, as the plugin skips NCCL_ALGO_PROTO_IGNORE entries.
std::optional<std::pair<NcclAlgo, NcclProto>> aws_region_tuner_choice(
    AwsTunerPlatform platform, sched::Collective collective, int ranks, int nodes, double bytes,
    const std::function<bool(NcclAlgo, NcclProto)>& enabled);

/// The channel count the tuner sets with its pick (algo, proto), or 0 where it leaves NCCL's:
/// on p6-b200 only (region_get_coll_info_internal_v3), Tree/LL128 allreduce of 4-32 MiB with 8
/// GPUs per node gets 16, 24 or 32 (calculateBestNChannelTree: the count whose LL128 tree chunk
/// is largest, the larger count on a tie), PAT up to 32 MiB with one GPU per node 1 or 2
/// (calculateBestNChannelPat: up to 64 KiB, then 128 KiB, per node).
int aws_region_tuner_channels(AwsTunerPlatform platform, sched::Collective collective, int ranks,
                              int nodes, double bytes, NcclAlgo algo, NcclProto proto);

}  // namespace topotune::algo
