#pragma once
// The AWS region tuner's tables (aws/aws-ofi-nccl src/tuner/nccl_ofi_regions.cpp): per
// platform, GPUs per node and collective, polygons in (log2 bytes, log2 ranks) space, each
// naming an (algorithm, protocol). aws_ofi_regions.cc is generated from the release's source by
// scripts/aws_ofi_regions.py; the geometry that reads them is aws_ofi_tuner.cc's.

#include <vector>

#include "algorithms/nccl/aws_ofi_tuner.h"
#include "algorithms/nccl/nccl_params.h"
#include "algorithms/schedule/collective_spec.h"

namespace topotune::algo {

/// A point of the tuner's plane: (bytes, ranks), or their log2 once in a region.
struct AwsPoint {
  double x, y;
};

/// One polygon, its vertices in log2 space (transform_log2).
struct AwsRegion {
  NcclAlgo algo;
  NcclProto proto;
  std::vector<AwsPoint> vertices;
};

/// transform_log2: (log2 bytes, log2 ranks); a size of 0 counts as 1e-6 bytes.
AwsPoint aws_log2(AwsPoint p);
/// extend_region(a, b, z): the point of line ab (in log2 space) that reaches z's size or z's
/// rank count first, returned in linear space as the source stores it.
AwsPoint aws_extend(AwsPoint a, AwsPoint b, AwsPoint z);

/// The regions of `platform` for `gpus_per_node` and collective `c`, in the order the tuner
/// tries them; empty where the release has none (NCCL's own model decides there).
const std::vector<AwsRegion>& aws_regions(AwsTunerPlatform platform, int gpus_per_node,
                                          sched::Collective c);

}  // namespace topotune::algo
