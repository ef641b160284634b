// The physical time of NCCL's choice, solved by hand on simple parameters.

#include "algorithms/nccl/nccl_physical_time.h"

#include <gtest/gtest.h>

#include "algorithms/nccl/nccl_predictor.h"
#include "tests/nccl/test_systems.h"

namespace topotune::algo {
namespace {

using sched::Collective;

NcclModelParams simple_params() {
  NcclModelParams p = default_params();
  p.nvlink_efficiency = 0.5;
  p.nvls_efficiency = 0.5;
  p.ring_simple_engine = 1.0;
  p.base_latency_scale = 1.0;
  p.nvlink_latency_scale = 1.0;
  p.launch_overhead_per_gpu_us = 0.0;
  p.nvls_latency_us = 20.0;
  p.nvls_chunk_latency_us = 0.5;
  return p;
}

TEST(NcclPhysicalTime, RingSimpleOnOneA100Node) {
  // 8 A100 on an NVSwitch, 12 x 25 GB/s each: NVLink 300 x 0.5 = 150 GB/s. Ring/Simple
  // latency from NCCL 2.30.7's table: base 8.4 us + 14 steps x 3.4 us = 56 us.
  // S = 96e6 B: volume 2 x 7/8 x S = 168e6 B.
  // 24 channels (NCCL's 12 searched x 2) x 24 GB/s engine exceed NVLink: 168e6 B / 150 GB/s =
  // 1120 us; total 1176 us.
  const NcclPredictor all(testing::dgx_a100(1), simple_params(), {});
  const NcclCandidate c =
      all.evaluate(Collective::Allreduce, Bytes(96000000), NcclAlgo::Ring, NcclProto::Simple);
  EXPECT_EQ(c.channels, 24);
  EXPECT_NEAR(c.time.us(), 1176.0, 1e-6);
  EXPECT_NEAR(c.latency.us(), 56.0, 1e-9);
  EXPECT_EQ(c.bottleneck, "NVLink");
  // NCCL_MAX_NCHANNELS=4: 4 engines x 24 GB/s (perChMaxTreeBws Ampere one node) = 96 GB/s;
  // 168e6 / 96e9 = 1750 us; total 1806 us.
  NcclOptions four;
  four.max_channels = 4;
  const NcclCandidate c4 =
      NcclPredictor(testing::dgx_a100(1), simple_params(), four)
          .evaluate(Collective::Allreduce, Bytes(96000000), NcclAlgo::Ring, NcclProto::Simple);
  EXPECT_EQ(c4.channels, 4);
  EXPECT_NEAR(c4.time.us(), 1806.0, 1e-6);
  EXPECT_EQ(c4.bottleneck, "engine");
}

TEST(NcclPhysicalTime, NvlsOnOneH100Node) {
  // In-switch reduction at 450 x 0.5 = 225 GB/s (16 channels x 38.7 GB/s engines exceed it).
  // Latency: NCCL's tree Simple base 8.4 us + NVLS 20 us = 28.4 us. 1 GiB in 128 KiB chunks
  // (NCCL_NVLS_CHUNKSIZE; 1 GiB is not below 64 x 16 x 8 chunks) on 16 channels: 512 chunks
  // per channel at 0.5 us = 256 us; bandwidth 1073741.824 / 225 = 4772.1859 us; the second
  // hop of one chunk per channel 131.072 x 16 / 225 = 9.3207 us. Total 5065.9066 us.
  const NcclPredictor pr(testing::dgx_h100(1), simple_params(), {});
  const NcclCandidate c =
      pr.evaluate(Collective::Allreduce, Bytes(1 << 30), NcclAlgo::Nvls, NcclProto::Simple);
  EXPECT_EQ(c.channels, 16);
  const double expected = 28.4 + 1073741.824 / 225 + 131.072 * 16 / 225 + 512 * 0.5;
  EXPECT_NEAR(c.time.us(), expected, 1e-6);
  EXPECT_EQ(c.bottleneck, "NVLS");
}

TEST(NcclPhysicalTime, NetworkBoundsRingAcrossNodesAndTreeExceedsItAtTwoNodes) {
  // A ring's busbw is bounded by the node's NICs; a tree at two nodes sends the buffer once
  // per node (not 2(n-1)/n of it), so its busbw can exceed the NICs' line rate.
  NcclModelParams p = simple_params();
  p.nvlink_efficiency = 1.0;
  p.net_efficiency[static_cast<int>(NicClass::InfiniBand)] = 1.0;
  p.net_efficiency[static_cast<int>(NicClass::EfaSrd)] = 1.0;
  const Bytes big(std::int64_t{8} << 30);
  const double factor = 2.0 * 15 / 16;  // busbw = algbw x 2(n-1)/n at 16 ranks
  const NcclCandidate ring =
      NcclPredictor(testing::dgx_a100(2), p, {})
          .evaluate(Collective::Allreduce, big, NcclAlgo::Ring, NcclProto::Simple);
  EXPECT_EQ(ring.bottleneck, "network");
  EXPECT_NEAR(big.value / ring.time.value / 1e9 * factor, 200.0, 2.0);  // 8 x 200 Gbps
  const NcclCandidate tree =
      NcclPredictor(testing::p4d(2), p, {})
          .evaluate(Collective::Allreduce, big, NcclAlgo::Tree, NcclProto::Simple);
  EXPECT_GT(big.value / tree.time.value / 1e9 * factor, 50.0);  // 4 x 100 Gbps
}

}  // namespace
}  // namespace topotune::algo
