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

// The tuner's pick for `gpus` GPUs per node.
std::string at_gpn(AwsTunerPlatform p, int nodes, int gpus, double bytes, sched::Collective c,
                   bool pat = true) {
  const auto enabled = [pat](NcclAlgo a, NcclProto) { return pat || a != NcclAlgo::Pat; };
  const auto r = aws_region_tuner_choice(p, c, gpus * nodes, nodes, bytes, enabled);
  if (!r) return "nccl";
  return std::string(nccl_algo_name(r->first)) + "/" + nccl_proto_name(r->second);
}

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

// p6-b200, 8 GPUs per node (region_init_internal_p6): allreduce Tree/LL up to 384 KiB at any
// rank count, Tree/LL128 to the staircase through (17.5 MiB, 32) and (38.5 MiB, 64), the
// Ring/LL128 island on (17.5-127.5 MiB, 32) and (48.5-114.5 MiB, 64), NVLSTree to the edge
// (MAX, 16)-(415 MiB, 32), Ring/Simple beyond; all-gather and reduce-scatter Ring with LL to
// 1.5 MiB at 32 ranks, LL128 to 435 MiB (all-gather) / 485 MiB (reduce-scatter), then Simple.
TEST(AwsRegionTuner, P6B200EightGpusPerNode) {
  using sched::Collective;
  const AwsTunerPlatform p6 = aws_tuner_platform("p6-b200.48xlarge");
  ASSERT_EQ(p6, AwsTunerPlatform::P6);
  EXPECT_EQ(at(p6, 4, 0.25 * MiB), "tree/LL");
  EXPECT_EQ(at(p6, 64, 0.25 * MiB), "tree/LL");
  EXPECT_EQ(at(p6, 4, 16 * MiB), "tree/LL128");
  EXPECT_EQ(at(p6, 4, 64 * MiB), "ring/LL128");
  EXPECT_EQ(at(p6, 8, 32 * MiB), "tree/LL128");
  EXPECT_EQ(at(p6, 8, 64 * MiB), "ring/LL128");
  EXPECT_EQ(at(p6, 4, 256 * MiB), "nvls_tree/Simple");
  EXPECT_EQ(at(p6, 4, 1024 * MiB), "ring/Simple");
  EXPECT_EQ(at(p6, 4, 1 * MiB, Collective::Allgather), "ring/LL");
  EXPECT_EQ(at(p6, 4, 256 * MiB, Collective::Allgather), "ring/LL128");
  EXPECT_EQ(at(p6, 4, 448 * MiB, Collective::Allgather), "ring/Simple");
  EXPECT_EQ(at(p6, 4, 448 * MiB, Collective::ReduceScatter), "ring/LL128");
  EXPECT_EQ(at(p6, 4, 512 * MiB, Collective::ReduceScatter), "ring/Simple");
}

// p6-b200, one GPU per node: all-gather PAT up to the edge (1 MiB, 4)-(4 MiB + 1, 16), 2 MiB
// at 8 ranks; Ring/LL128 to the edge (2 MiB, 2)-(16 MiB, 8); Ring/Simple beyond. Where NCCL
// has no PAT the point inside PAT's polygon is in no other: NCCL decides.
TEST(AwsRegionTuner, P6B200OneGpuPerNodeRunsPat) {
  using sched::Collective;
  const AwsTunerPlatform p6 = AwsTunerPlatform::P6;
  EXPECT_EQ(at_gpn(p6, 8, 1, 1 * MiB, Collective::Allgather), "pat/Simple");
  EXPECT_EQ(at_gpn(p6, 8, 1, 2 * MiB, Collective::Allgather), "pat/Simple");
  EXPECT_EQ(at_gpn(p6, 8, 1, 8 * MiB, Collective::Allgather), "ring/LL128");
  EXPECT_EQ(at_gpn(p6, 8, 1, 64 * MiB, Collective::Allgather), "ring/Simple");
  EXPECT_EQ(at_gpn(p6, 8, 1, 1 * MiB, Collective::Allgather, false), "nccl");
  EXPECT_EQ(at_gpn(p6, 2, 1, 1 * MiB, Collective::Allgather), "nccl");  // two nodes
}

// p6-b300 all-gather at 32 ranks: LL to 3.25 MiB, LL128 to 832 MiB, Simple beyond.
TEST(AwsRegionTuner, P6B300AllGather) {
  const AwsTunerPlatform b300 = aws_tuner_platform("p6-b300.48xlarge");
  ASSERT_EQ(b300, AwsTunerPlatform::P6B300);
  EXPECT_EQ(at(b300, 4, 3 * MiB, sched::Collective::Allgather), "ring/LL");
  EXPECT_EQ(at(b300, 4, 4 * MiB, sched::Collective::Allgather), "ring/LL128");
  EXPECT_EQ(at(b300, 4, 800 * MiB, sched::Collective::Allgather), "ring/LL128");
  EXPECT_EQ(at(b300, 4, 1024 * MiB, sched::Collective::Allgather), "ring/Simple");
}

// p5/p5e with 2 GPUs per node, allreduce at 8 ranks: Tree/LL128 to 1,051,648 bytes, Ring/LL128
// to 41,842,688, NVLSTree beyond (to 275,775,488).
TEST(AwsRegionTuner, P5TwoGpusPerNode) {
  const AwsTunerPlatform p5 = AwsTunerPlatform::P5;
  EXPECT_EQ(at_gpn(p5, 4, 2, 0.5 * MiB, sched::Collective::Allreduce), "tree/LL128");
  EXPECT_EQ(at_gpn(p5, 4, 2, 16 * MiB, sched::Collective::Allreduce), "ring/LL128");
  EXPECT_EQ(at_gpn(p5, 4, 2, 128 * MiB, sched::Collective::Allreduce), "nvls_tree/Simple");
  EXPECT_EQ(at_gpn(p5, 4, 4, 16 * MiB, sched::Collective::Allreduce), "nccl");  // no 4-GPU list
}

// The channel counts the tuner sets on p6-b200 (region_get_coll_info_internal_v3), worked by
// hand from calculateChunkSizeTreeLL128: at 4 nodes and 4 MiB every count's chunk ends at
// 18,000 bytes (18,432 on the wire), a tie the largest count wins; at 16 nodes and 8 MiB 16
// channels keep 36,000-byte chunks where 24 and 32 halve to 18,000. PAT: one channel up to
// 64 KiB per node, two up to 128 KiB, NCCL's beyond.
TEST(AwsRegionTuner, P6ChannelCounts) {
  using sched::Collective;
  const AwsTunerPlatform p6 = AwsTunerPlatform::P6;
  const auto tree = [p6](int nodes, double bytes) {
    return aws_region_tuner_channels(p6, Collective::Allreduce, 8 * nodes, nodes, bytes,
                                     NcclAlgo::Tree, NcclProto::LL128);
  };
  EXPECT_EQ(tree(4, 4 * MiB), 32);
  EXPECT_EQ(tree(16, 8 * MiB), 16);
  EXPECT_EQ(tree(16, 3 * MiB), 0);   // below 4 MiB
  EXPECT_EQ(tree(16, 33 * MiB), 0);  // above 32 MiB
  EXPECT_EQ(aws_region_tuner_channels(AwsTunerPlatform::P5, Collective::Allreduce, 128, 16, 8 * MiB,
                                      NcclAlgo::Tree, NcclProto::LL128),
            0);
  const auto pat = [p6](double bytes) {
    return aws_region_tuner_channels(p6, Collective::Allgather, 8, 8, bytes, NcclAlgo::Pat,
                                     NcclProto::Simple);
  };
  EXPECT_EQ(pat(0.5 * MiB), 1);
  EXPECT_EQ(pat(1 * MiB), 2);
  EXPECT_EQ(pat(2 * MiB), 0);
}

}  // namespace
}  // namespace topotune::algo
