// The AWS region tuner (aws/aws-ofi-nccl v1.21.1 src/tuner/nccl_ofi_regions.cpp) on the sizes
// its polygons put on either side of each boundary.

#include "algorithms/nccl/aws_ofi_tuner.h"

#include <gtest/gtest.h>

#include <string>

namespace topotune::algo {
namespace {

std::string at(AwsTunerPlatform p, int nodes, double bytes,
               sched::Collective c = sched::Collective::Allreduce) {
  const auto all = [](NcclAlgo, NcclProto) { return true; };
  const auto r = aws_region_tuner_choice(p, c, 8 * nodes, nodes, bytes, all);
  if (!r) return "nccl";
  return std::string(nccl_algo_name(r->first)) + "/" + nccl_proto_name(r->second);
}

constexpr double MiB = 1024.0 * 1024;

TEST(AwsRegionTuner, P5AtFourAndSixteenNodes) {
  // The first polygon (Tree/LL128) reaches 36 MiB at 32 ranks; Ring/LL128 up to the edge
  // (1 GiB, 17 ranks)-(2 GiB, 64 ranks); Ring/Simple beyond.
  EXPECT_EQ(at(AwsTunerPlatform::P5, 4, 32 * MiB), "tree/LL128");
  EXPECT_EQ(at(AwsTunerPlatform::P5, 4, 64 * MiB), "ring/LL128");
  EXPECT_EQ(at(AwsTunerPlatform::P5, 4, 1024 * MiB), "ring/LL128");
  EXPECT_EQ(at(AwsTunerPlatform::P5, 4, 2048 * MiB), "ring/Simple");
  EXPECT_EQ(at(AwsTunerPlatform::P5, 16, 256 * MiB), "tree/LL128");
  EXPECT_EQ(at(AwsTunerPlatform::P5, 16, 512 * MiB), "ring/LL128");
  EXPECT_EQ(at(AwsTunerPlatform::P5, 16, 4096 * MiB), "nvls_tree/Simple");
  EXPECT_EQ(at(AwsTunerPlatform::P5, 16, 8192 * MiB), "ring/Simple");
}

TEST(AwsRegionTuner, OnlyPastTwoNodesWithEightGpus) {
  EXPECT_EQ(at(AwsTunerPlatform::P5, 2, 64 * MiB), "nccl");
  const auto all = [](NcclAlgo, NcclProto) { return true; };
  EXPECT_FALSE(aws_region_tuner_choice(AwsTunerPlatform::P5, sched::Collective::Allreduce, 16, 4,
                                       64 * MiB, all));  // 4 GPUs/node
  EXPECT_FALSE(aws_region_tuner_choice(AwsTunerPlatform::None, sched::Collective::Allreduce, 32, 4,
                                       64 * MiB, all));
  EXPECT_EQ(aws_tuner_platform("p5.48xlarge"), AwsTunerPlatform::P5);
  EXPECT_EQ(aws_tuner_platform("p5e.48xlarge"), AwsTunerPlatform::P5);
  EXPECT_EQ(aws_tuner_platform("p5en.48xlarge"), AwsTunerPlatform::P5en);
  EXPECT_EQ(aws_tuner_platform("p4d.24xlarge"), AwsTunerPlatform::None);
}

TEST(AwsRegionTuner, SkipsWhatNcclDisabled) {
  // NVLSTree without NVLS support (or LL128 under NCCL_PROTO=simple) falls to the next region
  // or back to NCCL.
  const auto no_nvls = [](NcclAlgo a, NcclProto) { return a != NcclAlgo::NvlsTree; };
  const auto r = aws_region_tuner_choice(AwsTunerPlatform::P5, sched::Collective::Allreduce, 128,
                                         16, 4096 * MiB, no_nvls);
  EXPECT_TRUE(!r || r->first != NcclAlgo::NvlsTree);
  const auto simple = [](NcclAlgo, NcclProto p) { return p == NcclProto::Simple; };
  EXPECT_FALSE(aws_region_tuner_choice(AwsTunerPlatform::P5, sched::Collective::Allreduce, 32, 4,
                                       32 * MiB, simple));
}

TEST(AwsRegionTuner, P5enRegions) {
  EXPECT_EQ(at(AwsTunerPlatform::P5en, 4, 128 * 1024.0), "tree/LL");
  EXPECT_EQ(at(AwsTunerPlatform::P5en, 4, 16 * MiB), "tree/LL128");
  EXPECT_EQ(at(AwsTunerPlatform::P5en, 4, 32 * MiB), "ring/LL128");
  EXPECT_EQ(at(AwsTunerPlatform::P5en, 4, 512 * MiB), "ring/Simple");
}

// All-gather and reduce-scatter on P5en (8 GPUs per node): Ring, the protocol by region.
// Boundaries worked from the vertex lists in log2 space: at 32 ranks LL ends on the edge
// (768 KiB, 16)-(4.5 MiB, 128), at 1.43 MB; all-gather's LL128 ends on (226 MiB, 16)-(912 MiB,
// 64), at 477 MB, and Simple starts at 472 MiB (between them NCCL decides); reduce-scatter's
// LL128 ends and Simple starts at 562 MiB. At 128 ranks all-gather's LL ends at 4.5 MiB and
// LL128 at the edge (912 MiB, 64)-(6.75 GiB, 384), 2.0 GB.
TEST(AwsRegionTuner, P5enAllGatherAndReduceScatter) {
  using C = sched::Collective;
  const auto P5en = AwsTunerPlatform::P5en;
  EXPECT_EQ(at(P5en, 4, 1 * MiB, C::Allgather), "ring/LL");
  EXPECT_EQ(at(P5en, 4, 2 * MiB, C::Allgather), "ring/LL128");
  EXPECT_EQ(at(P5en, 4, 256 * MiB, C::Allgather), "ring/LL128");
  EXPECT_EQ(at(P5en, 4, 460 * MiB, C::Allgather), "nccl");
  EXPECT_EQ(at(P5en, 4, 1024 * MiB, C::Allgather), "ring/Simple");
  EXPECT_EQ(at(P5en, 16, 4 * MiB, C::Allgather), "ring/LL");
  EXPECT_EQ(at(P5en, 16, 8 * MiB, C::Allgather), "ring/LL128");
  EXPECT_EQ(at(P5en, 16, 1024 * MiB, C::Allgather), "ring/LL128");
  EXPECT_EQ(at(P5en, 16, 4096 * MiB, C::Allgather), "ring/Simple");
  EXPECT_EQ(at(P5en, 4, 1 * MiB, C::ReduceScatter), "ring/LL");
  EXPECT_EQ(at(P5en, 4, 2 * MiB, C::ReduceScatter), "ring/LL128");
  EXPECT_EQ(at(P5en, 4, 512 * MiB, C::ReduceScatter), "ring/LL128");
  EXPECT_EQ(at(P5en, 4, 1024 * MiB, C::ReduceScatter), "ring/Simple");
  // P5 and P5e have no all-gather/reduce-scatter regions with 8 GPUs per node; two nodes or
  // fewer and broadcast are NCCL's own everywhere.
  EXPECT_EQ(at(AwsTunerPlatform::P5, 4, 2 * MiB, C::Allgather), "nccl");
  EXPECT_EQ(at(P5en, 2, 2 * MiB, C::Allgather), "nccl");
  EXPECT_EQ(at(P5en, 4, 2 * MiB, C::Broadcast), "nccl");
}

}  // namespace
}  // namespace topotune::algo
