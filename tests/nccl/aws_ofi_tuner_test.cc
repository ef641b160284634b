// The AWS region tuner (aws/aws-ofi-nccl v1.21.1 src/tuner/nccl_ofi_regions.cpp) on the sizes
// its polygons put on either side of each boundary.

#include "algorithms/nccl/aws_ofi_tuner.h"

#include <gtest/gtest.h>

#include <string>

namespace topotune::algo {
namespace {

std::string at(AwsTunerPlatform p, int nodes, double bytes) {
  const auto all = [](NcclAlgo, NcclProto) { return true; };
  const auto r = aws_region_tuner_choice(p, 8 * nodes, nodes, bytes, all);
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
  EXPECT_FALSE(aws_region_tuner_choice(AwsTunerPlatform::P5, 16, 4, 64 * MiB, all));  // 4 GPUs/node
  EXPECT_FALSE(aws_region_tuner_choice(AwsTunerPlatform::None, 32, 4, 64 * MiB, all));
  EXPECT_EQ(aws_tuner_platform("p5.48xlarge"), AwsTunerPlatform::P5);
  EXPECT_EQ(aws_tuner_platform("p5e.48xlarge"), AwsTunerPlatform::P5);
  EXPECT_EQ(aws_tuner_platform("p5en.48xlarge"), AwsTunerPlatform::P5en);
  EXPECT_EQ(aws_tuner_platform("p4d.24xlarge"), AwsTunerPlatform::None);
}

TEST(AwsRegionTuner, SkipsWhatNcclDisabled) {
  // NVLSTree without NVLS support (or LL128 under NCCL_PROTO=simple) falls to the next region
  // or back to NCCL.
  const auto no_nvls = [](NcclAlgo a, NcclProto) { return a != NcclAlgo::NvlsTree; };
  const auto r = aws_region_tuner_choice(AwsTunerPlatform::P5, 128, 16, 4096 * MiB, no_nvls);
  EXPECT_TRUE(!r || r->first != NcclAlgo::NvlsTree);
  const auto simple = [](NcclAlgo, NcclProto p) { return p == NcclProto::Simple; };
  EXPECT_FALSE(aws_region_tuner_choice(AwsTunerPlatform::P5, 32, 4, 32 * MiB, simple));
}

TEST(AwsRegionTuner, P5enRegions) {
  EXPECT_EQ(at(AwsTunerPlatform::P5en, 4, 128 * 1024.0), "tree/LL");
  EXPECT_EQ(at(AwsTunerPlatform::P5en, 4, 16 * MiB), "tree/LL128");
  EXPECT_EQ(at(AwsTunerPlatform::P5en, 4, 32 * MiB), "ring/LL128");
  EXPECT_EQ(at(AwsTunerPlatform::P5en, 4, 512 * MiB), "ring/Simple");
}

}  // namespace
}  // namespace topotune::algo
