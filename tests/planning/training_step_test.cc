// Training-step simulation: DDP bucket assignment semantics and hand-solved overlap timelines.

#include "simulator/training_step.h"

#include <gtest/gtest.h>

#include <vector>

namespace topotune::sim {
namespace {

// A synthetic model for the bucket sweep: 8 layers, each with a 1 ms backward and one 4 MiB
// gradient; allreduce(x) = 1 ms + x / (8 MiB/ms). With first bucket = cap = k tensors:
//   k=1: 8 allreduces of 1.5 ms, ready at 1,2,..,8 ms: the stream is the bottleneck,
//        ends 1 + 8 x 1.5 = 13 ms -> exposed 5 ms (latency-bound).
//   k=2: 4 x 2 ms ready at 2,4,6,8: 2-4, 4-6, 6-8, 8-10 -> exposed 2 ms (the optimum).
//   k=3: 3+3+2 tensors, 2.5/2.5/2 ms ready at 3,6,8: 3-5.5, 6-8.5, 8.5-10.5 -> exposed 2.5 ms.
//   k=4: 2 x 3 ms ready at 4,8: 4-7, 8-11 -> exposed 3 ms.
//   k=8: one 5 ms allreduce after the backward ends: 8-13 -> exposed 5 ms (no overlap).
StepModel sweep_model() {
  StepModel m;
  for (int i = 0; i < 8; ++i) {
    m.layers.push_back({Seconds(0), Seconds(1e-3)});
    m.grads.push_back({4_MiB, 4_MiB, i});
  }
  return m;
}

Seconds sweep_allreduce(Bytes b) {
  return Seconds(1e-3 + b.as_double() / (8.0 * (1 << 20)) * 1e-3);
}

double exposed_ms_with_cap(int k) {
  const Bytes cap = 4_MiB * k;
  return simulate_ddp_step(sweep_model(), {cap, cap}, sweep_allreduce).exposed_comm.value * 1e3;
}

TEST(TrainingStep, BucketSweepHasHandDerivedInteriorOptimum) {
  EXPECT_NEAR(exposed_ms_with_cap(1), 5.0, 1e-9);
  EXPECT_NEAR(exposed_ms_with_cap(2), 2.0, 1e-9);
  EXPECT_NEAR(exposed_ms_with_cap(3), 2.5, 1e-9);
  EXPECT_NEAR(exposed_ms_with_cap(4), 3.0, 1e-9);
  EXPECT_NEAR(exposed_ms_with_cap(8), 5.0, 1e-9);
}

TEST(TrainingStep, TimelineOfTheOptimum) {
  const StepResult r = simulate_ddp_step(sweep_model(), {8_MiB, 8_MiB}, sweep_allreduce);
  ASSERT_EQ(r.buckets.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(r.buckets[i].tensors, 2);
    EXPECT_EQ(r.buckets[i].bytes, 8_MiB);
    EXPECT_NEAR(r.buckets[i].ready.value, 2e-3 * (i + 1), 1e-12);
    EXPECT_NEAR(r.buckets[i].start.value, 2e-3 * (i + 1), 1e-12);
    EXPECT_NEAR(r.buckets[i].end.value, 2e-3 * (i + 2), 1e-12);
  }
  EXPECT_NEAR(r.backward.value, 8e-3, 1e-12);
  EXPECT_NEAR(r.comm_busy.value, 8e-3, 1e-12);
  EXPECT_NEAR(r.step.value, 10e-3, 1e-12);
}

TEST(TrainingStep, ForwardAddsToTheStepNotToExposedComm) {
  StepModel m = sweep_model();
  for (StepLayer& l : m.layers) l.forward = Seconds(0.5e-3);
  const StepResult r = simulate_ddp_step(m, {8_MiB, 8_MiB}, sweep_allreduce);
  EXPECT_NEAR(r.forward.value, 4e-3, 1e-12);
  EXPECT_NEAR(r.step.value, 14e-3, 1e-12);  // 4 ms forward + the 10 ms above
  EXPECT_NEAR(r.exposed_comm.value, 2e-3, 1e-12);
}

TEST(DdpBuckets, CloseWhenTheLimitIsReachedNotExceeded) {
  // 4 MiB tensors, cap 5 MiB: reducer.cpp appends first and closes at size >= limit, so each
  // bucket holds two tensors (8 MiB), not one.
  const std::vector<Bytes> sizes(6, 4_MiB);
  const auto b = ddp_bucket_assignment(sizes, 5_MiB, 5_MiB);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0], (std::vector<int>{0, 1}));
  EXPECT_EQ(b[2], (std::vector<int>{4, 5}));
}

TEST(DdpBuckets, FirstBucketHasItsOwnLimit) {
  // 0.5 MiB x3 then 10 MiB x4, defaults (1 MiB first, 25 MiB after): the first bucket closes
  // at 1.0 MiB (two tensors); the second at 0.5+10+10+10 = 30.5 MiB >= 25; one 10 MiB left.
  const std::vector<Bytes> sizes = {512_KiB, 512_KiB, 512_KiB, 10_MiB, 10_MiB, 10_MiB, 10_MiB};
  const auto b = ddp_bucket_assignment(sizes, 1_MiB, 25_MiB);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0], (std::vector<int>{0, 1}));
  EXPECT_EQ(b[1], (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(b[2], (std::vector<int>{6}));
}

TEST(DdpBuckets, ReadyOrderIsReverseLayerThenReverseRegistration) {
  StepModel m;
  m.layers.resize(3);
  // Tensor 0 belongs to layer 2 (like a tied embedding registered first but used last in the
  // forward pass); tensors 1 and 2 share layer 1; tensor 3 is layer 0.
  m.grads = {{1_B, 1_B, 2}, {1_B, 1_B, 1}, {1_B, 1_B, 1}, {1_B, 1_B, 0}};
  EXPECT_EQ(gradient_ready_order(m), (std::vector<int>{0, 2, 1, 3}));
}

TEST(Horovod, CycleTimeGroupsWhatIsReady) {
  // Cycle 1 ms: every 4 MiB gradient is alone in its cycle: like k=1 above, 13 ms.
  EXPECT_NEAR(
      simulate_horovod_step(sweep_model(), {128_MiB, Seconds(1e-3)}, sweep_allreduce).step.value,
      13e-3, 1e-12);
  // Cycle 2 ms: two gradients per cycle fused (8 MiB): like k=2, 10 ms.
  const StepResult two =
      simulate_horovod_step(sweep_model(), {128_MiB, Seconds(2e-3)}, sweep_allreduce);
  EXPECT_EQ(two.buckets.size(), 4u);
  EXPECT_NEAR(two.step.value, 10e-3, 1e-12);
}

TEST(Horovod, FusionThresholdSplitsACycle) {
  // Cycle 2 ms, threshold 4 MiB: each cycle's two gradients go separately, 8 allreduces of
  // 1.5 ms ready at 2,2,4,4,6,6,8,8 ms: the stream runs back to back from 2 ms to 14 ms.
  const StepResult r =
      simulate_horovod_step(sweep_model(), {4_MiB, Seconds(2e-3)}, sweep_allreduce);
  ASSERT_EQ(r.buckets.size(), 8u);
  EXPECT_NEAR(r.buckets[1].ready.value, 2e-3, 1e-12);
  EXPECT_NEAR(r.step.value, 14e-3, 1e-12);
  EXPECT_NEAR(r.exposed_comm.value, 6e-3, 1e-12);
}

}  // namespace
}  // namespace topotune::sim
