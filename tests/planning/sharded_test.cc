// The sharded planner: units of a model, the step model and the memory model on hand-derived
// cases, and the ranking's fit rule on real clusters.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <tuple>

#include "planning/shard_units.h"
#include "planning/sharded_emitters.h"
#include "planning/sharded_memory.h"
#include "planning/sharded_plan.h"
#include "planning/sharded_step.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {
namespace {

// Collectives at a fixed rate: `rate` bytes per second, no latency.
CollectiveTime at_rate(double rate) {
  return [rate](Bytes b) -> Expected<Seconds> { return Seconds(b.as_double() / rate); };
}

// Two units A and B of 100 parameters (and an empty root), each 1 s forward and 2 s backward.
ShardUnits two_units() {
  ShardUnits u;
  u.units = {{"root", 0, true}, {"A", 100, false}, {"B", 100, false}};
  u.segments = {{1, Seconds(1), Seconds(2)}, {2, Seconds(1), Seconds(2)}};
  return u;
}

// bf16 all-gather of a unit: 200 bytes at 200 B/s = 1 s; fp32 reduce-scatter: 400 B at
// 400 B/s = 1 s.
const ShardedComm kComm{at_rate(200), at_rate(400), at_rate(400), {}, {}, {}};

TEST(ShardedStep, TwoUnitsFsdpReshardHandDerived) {
  // Forward: AG(A) [0,1] (nothing before it: issued at 0); A computes [1,2]. AG(B) is issued
  // when A's compute starts (prefetch 1): [1,2]; B computes [2,3].
  // Backward from 3: AG(B) [3,4]; B's backward [4,6]; RS(B) [6,7]. AG(A) issued when B's
  // backward starts (4): [4,5]; A's backward [6,8]; RS(A) [8,9]. Step 9 s, compute 6 s, four
  // all-gathers and two reduce-scatters of 1 s.
  ShardedStepConfig c;
  ASSERT_EQ(c.prefetch, 1);
  ASSERT_TRUE(c.reshard_after_forward);
  const ShardedStepResult r = *simulate_sharded_step(two_units(), c, kComm);
  EXPECT_DOUBLE_EQ(r.step.value, 9.0);
  EXPECT_DOUBLE_EQ(r.forward_compute.value, 2.0);
  EXPECT_DOUBLE_EQ(r.backward_compute.value, 4.0);
  EXPECT_DOUBLE_EQ(r.exposed_comm.value, 3.0);
  EXPECT_DOUBLE_EQ(r.comm_busy.value, 6.0);
  EXPECT_EQ(r.collectives, 6);
}

TEST(ShardedStep, TheBandSumsEachCollectivesTimeTimesItsError) {
  // As the first case: four 1 s all-gathers at 10 % and two 1 s reduce-scatters at 20 % (the
  // error of a 400-byte buffer; any other size would take 50 %): 0.4 s + 0.4 s.
  ShardedComm comm = kComm;
  comm.allgather_error = [](Bytes) { return 0.1; };
  comm.reduce_error = [](Bytes b) { return b.value == 400 ? 0.2 : 0.5; };
  const ShardedStepResult r = *simulate_sharded_step(two_units(), {}, comm);
  EXPECT_DOUBLE_EQ(r.band.value, 0.8);
  EXPECT_DOUBLE_EQ(simulate_sharded_step(two_units(), {}, kComm)->band.value, 0.0);
}

TEST(ShardedStep, RecomputeRunsEachBlocksForwardAgainInItsBackward) {
  // As the first case with 3 s backwards: B [4,7], RS(B) [7,8]; AG(A) [4,5]; A [7,10],
  // RS(A) [10,11].
  const ShardedStepResult r = *simulate_sharded_step(with_recompute(two_units()), {}, kComm);
  EXPECT_DOUBLE_EQ(r.step.value, 11.0);
  EXPECT_DOUBLE_EQ(r.backward_compute.value, 6.0);
}

TEST(ShardedStep, PrefetchTwoIssuesAGatherAUnitEarlier) {
  // Units A, B (100 parameters: 1 s all-gathers) and C (200: 2 s); forward A 3 s, B and C 1 s;
  // no backward compute, free reductions, no reshard: the step is the forward.
  // Prefetch 1: AG(A) [0,1], A [1,4]; AG(B) issued at A's start [1,2], B [4,5]; AG(C) issued
  // at B's start [4,6], C [6,7]: 7 s. Prefetch 2: AG(C) issued at A's start, after AG(B):
  // [2,4]; C [5,6]: 6 s.
  ShardUnits u;
  u.units = {{"root", 0, true}, {"A", 100, false}, {"B", 100, false}, {"C", 200, false}};
  u.segments = {
      {1, Seconds(3), Seconds(0)}, {2, Seconds(1), Seconds(0)}, {3, Seconds(1), Seconds(0)}};
  const ShardedComm comm{at_rate(200), at_rate(1e15), {}, {}, {}, {}};
  ShardedStepConfig c;
  c.reshard_after_forward = false;
  EXPECT_NEAR(simulate_sharded_step(u, c, comm)->step.value, 7.0, 1e-9);
  c.prefetch = 2;
  EXPECT_NEAR(simulate_sharded_step(u, c, comm)->step.value, 6.0, 1e-9);
}

TEST(ShardedStep, WithoutReshardBackwardGathersNothing) {
  // Forward as above (ends at 3). Backward: B [3,5], RS(B) [5,6]; A [5,7], RS(A) [7,8].
  ShardedStepConfig c;
  c.reshard_after_forward = false;
  const ShardedStepResult r = *simulate_sharded_step(two_units(), c, kComm);
  EXPECT_DOUBLE_EQ(r.step.value, 8.0);
  EXPECT_EQ(r.collectives, 4);
}

TEST(ShardedStep, HsdpAllreducesEachShardAfterItsReduceScatter) {
  // As the first case; each reduced shard (400 B / 2 ranks = 200 B at 400 B/s = 0.5 s) is
  // allreduced after its reduce-scatter: B [7,7.5], A [9,9.5]. Step 9.5 s.
  ShardedStepConfig c;
  c.replica_allreduce = true;
  c.shard_ranks = 2;
  const ShardedStepResult r = *simulate_sharded_step(two_units(), c, kComm);
  EXPECT_DOUBLE_EQ(r.step.value, 9.5);
  EXPECT_EQ(r.collectives, 8);
}

// Three units A, B, C of 100 parameters (and an empty root), each 1 s forward and 1 s
// backward: with kComm every all-gather and reduce-scatter takes 1 s alone.
ShardUnits three_units() {
  ShardUnits u;
  u.units = {{"root", 0, true}, {"A", 100, false}, {"B", 100, false}, {"C", 100, false}};
  u.segments = {
      {1, Seconds(1), Seconds(1)}, {2, Seconds(1), Seconds(1)}, {3, Seconds(1), Seconds(1)}};
  return u;
}

TEST(ShardedStep, BackwardAllGatherAndReduceScatterShareTheLinks) {
  // Forward: AG(A) [0,1], A [1,2]; AG(B) [1,2], B [2,3]; AG(C) [2,3], C [3,4].
  // Backward from 4: AG(C) [4,5], C [5,6]; AG(B) issued at C's start: [5,6], B [6,7]. At 6
  // RS(C) (C done) and AG(A) (B started) start together on the shard group's links: each at
  // 1/2, both end at 8 (alone: 7). A [8,9]; RS(B), queued behind RS(C), [8,9] alone; RS(A)
  // [9,10]. Step 10 s. Alone: RS(C), AG(A) [6,7], A [7,8], RS(B) [7,8], RS(A) [8,9]: 9 s.
  // The band is each collective's time alone times its error, with or without sharing.
  ShardedComm comm = kComm;
  comm.allgather_error = [](Bytes) { return 0.1; };
  ShardedStepConfig c;
  ASSERT_TRUE(c.share_shard_group_links);
  const ShardedStepResult r = *simulate_sharded_step(three_units(), c, comm);
  EXPECT_NEAR(r.step.value, 10.0, 1e-12);
  EXPECT_NEAR(r.exposed_comm.value, 4.0, 1e-12);
  EXPECT_DOUBLE_EQ(r.comm_busy.value, 9.0);  // six 1 s all-gathers, three 1 s reduce-scatters
  EXPECT_NEAR(r.band.value, 0.6, 1e-12);
  c.share_shard_group_links = false;
  const ShardedStepResult alone = *simulate_sharded_step(three_units(), c, comm);
  EXPECT_NEAR(alone.step.value, 9.0, 1e-12);
  EXPECT_DOUBLE_EQ(alone.band.value, r.band.value);
}

TEST(ShardedStep, TheReplicaAllreduceDoesNotShareTheShardGroupsLinks) {
  // As above, HSDP over 2 shard ranks: each reduced shard's allreduce, 200 B at 400 B/s =
  // 0.5 s, after its reduce-scatter. RS(C) ends at 8 (shared with AG(A)); Rep(C) [8,8.5]
  // while RS(B) [8,9] runs alone on the shard links; A [8,9]; RS(A) [9,10]; Rep(B) [9,9.5];
  // Rep(A) [10,10.5]. Step 10.5 s. (Were the replica on the shard links: Rep(C) and RS(B)
  // from 8 at 1/2, Rep(C) ends at 9, RS(B) at 9.5; RS(A) and Rep(B) from 9.5 at 1/2, Rep(B)
  // ends at 10.5, RS(A) at 11; Rep(A) [11,11.5]: 11.5 s.)
  ShardedStepConfig c;
  c.replica_allreduce = true;
  c.shard_ranks = 2;
  const ShardedStepResult r = *simulate_sharded_step(three_units(), c, kComm);
  EXPECT_NEAR(r.step.value, 10.5, 1e-12);
  EXPECT_EQ(r.collectives, 12);
}

TEST(ShardedStep, ZeroOneBucketsWithoutOverlapThenParameterGather) {
  // ZeRO-1/2: parameters replicated. Forward A [0,1], B [1,2]; backward B [2,4]. Buckets of
  // 100 parameters: B's bf16 reduce-scatter, 200 B at 400 B/s, [4,4.5], holds compute
  // (no overlap); A [4.5,6.5], its reduce-scatter [6.5,7]. Optimizer 0.5 s: 7.5. Then the
  // updated parameters, two 100-parameter buckets of 200 B at 200 B/s, 1 s each: 9.5 s.
  // (With overlap A would start at 4 and the step end at 9.)
  ShardedStepConfig c;
  c.gather_params = false;
  c.reshard_after_forward = false;
  c.grad_bytes = 2;
  c.reduce_bucket_params = 100;
  c.overlap_reduce = false;
  c.post_gather_bucket_params = 100;
  c.optimizer = Seconds(0.5);
  const ShardedStepResult r = *simulate_sharded_step(two_units(), c, kComm);
  EXPECT_DOUBLE_EQ(r.step.value, 9.5);
  EXPECT_DOUBLE_EQ(r.exposed_comm.value, 3.0);
  EXPECT_EQ(r.collectives, 4);
  // One bucket of both units: a single 1 s reduce-scatter after A, [6,7]: the same 9.5 s.
  c.reduce_bucket_params = 200;
  EXPECT_DOUBLE_EQ(simulate_sharded_step(two_units(), c, kComm)->step.value, 9.5);
  EXPECT_EQ(simulate_sharded_step(two_units(), c, kComm)->collectives, 3);
}

TEST(ShardedMemory, HandDerivedBreakdown) {
  // 1000 parameters: bf16 params unsharded 2000 B; grads over 2 ranks 2 x 500 = 1000 B; Adam
  // states over 4 ranks 12 x 250 = 3000 B; 100 gathered bf16 params 200 B; buffers 50 fp32
  // gradients + 20 bf16 parameters = 240 B; activations: 2 layers x 34 x s4 x b3 x h10 = 8160
  // B plus logits 6 x 4 x 3 x V50 = 3600 B. Total 18200 B.
  const TransformerShape shape{2, 10, 2, 4, 50};
  MemoryConfig c;
  c.state_ranks = 4;
  c.grad_ranks = 2;
  c.param_ranks = 1;
  c.gathered_params = 100;
  c.reduce_buffer_params = 50;
  c.grad_bytes = 4;
  c.gather_buffer_params = 20;
  c.batch_per_gpu = 3;
  const MemoryBreakdown m = sharded_memory(1000, shape, c);
  EXPECT_EQ(m.params.value, 2000);
  EXPECT_EQ(m.grads.value, 1000);
  EXPECT_EQ(m.optimizer.value, 3000);
  EXPECT_EQ(m.gathered.value, 200);
  EXPECT_EQ(m.buffers.value, 240);
  EXPECT_EQ(m.activations.value, 11760);
  EXPECT_EQ(m.total().value, 18200);
  // Full recomputation keeps 2 x s4 x b3 x h10 = 240 B per layer, plus one layer's 4080 B:
  // 2 x 240 + 4080 + 3600 of logits = 8160 B.
  c.recompute = true;
  EXPECT_EQ(sharded_memory(1000, shape, c).activations.value, 8160);
}

TEST(ShardUnits, LlamaBlocksAreUnitsAndTheRestIsTheRoot) {
  ComputeParams compute;
  compute.batch_per_gpu = 1;
  compute.peak_flops = 1e15;
  const ModelProfile model = *load_model_profile("llama-3.2-1b");
  const ShardUnits u = *make_shard_units(model, compute);
  ASSERT_EQ(u.units.size(), 17u);  // root + 16 blocks
  // A block: q,o 2048^2; k,v 2048x512 (8 KV heads of 64); gate,up,down 2048x8192; 2 norms.
  const std::int64_t block = 2 * 2048 * 2048 + 2 * 2048 * 512 + 3 * 2048 * 8192 + 2 * 2048;
  EXPECT_EQ(u.units[1].params, block);
  EXPECT_EQ(u.units[0].params, 128256LL * 2048 + 2048);  // embed_tokens (tied head) + norm
  EXPECT_EQ(u.total_params(), model.total_params());
  // Root (embedding), 16 blocks, root again (norm, tied LM head).
  ASSERT_EQ(u.segments.size(), 18u);
  EXPECT_EQ(u.segments.front().unit, 0);
  EXPECT_EQ(u.segments.back().unit, 0);
  // ZeRO-3's pieces keep the total.
  EXPECT_EQ(split_units(u, 50'000'000).total_params(), u.total_params());
}

TEST(ModelProfiles, LlamaTotalsRoundToThePublishedFigures) {
  // Hugging Face model cards: 1.24B, 8.03B, 70.6B parameters.
  const std::tuple<const char*, double, double> cases[] = {{"llama-3.2-1b", 1.24e9, 0.01e9},
                                                           {"llama-3.1-8b", 8.03e9, 0.01e9},
                                                           {"llama-3.1-70b", 70.6e9, 0.1e9}};
  for (const auto& [name, total, unit] : cases) {
    const double ours = static_cast<double>(load_model_profile(name)->total_params());
    EXPECT_LE(std::abs(ours - total), unit / 2) << name;
  }
}

// Every row's fit is its memory against the GPU's, and no row that fits is ranked after one
// that does not.
void expect_fit_rule(const ShardedPlan& p) {
  bool seen_misfit = false;
  for (const ShardedCandidate& c : p.candidates) {
    EXPECT_EQ(c.fits, c.memory.total() <= p.gpu_memory) << c.label();
    EXPECT_EQ(c.over.value, c.fits ? 0 : c.memory.total().value - p.gpu_memory.value);
    EXPECT_FALSE(c.fits && seen_misfit) << c.label() << " fits but is ranked after a misfit";
    seen_misfit = seen_misfit || !c.fits;
  }
}

PlanInputs cluster(const char* instance, int nodes, const char* model) {
  PlanInputs in;
  EXPECT_TRUE(set_plan_cluster(in, *topo::make_cluster_spec(instance, nodes),
                               std::string("\"") + instance + "\""));
  in.model = *load_model_profile(model);
  in.compute.batch_per_gpu = 1;
  return in;
}

TEST(ShardedPlan, Llama70bOnFourP4dDdpDoesNotFitAndRowsThatFitComeFirst) {
  const ShardedPlan p = *make_sharded_plan(cluster("p4d.24xlarge", 4, "llama-3.1-70b"));
  const auto ddp = std::find_if(p.candidates.begin(), p.candidates.end(),
                                [](const auto& c) { return c.strategy == ShardStrategy::Ddp; });
  ASSERT_NE(ddp, p.candidates.end());
  EXPECT_FALSE(ddp->fits);
  // 16 bytes per parameter alone are > 1 TB against a 40 GB GPU.
  EXPECT_GT(ddp->over.value, 16 * std::int64_t{70'000'000'000} - p.gpu_memory.value);
  EXPECT_EQ(ddp->over.value, ddp->memory.total().value - p.gpu_memory.value);
  expect_fit_rule(p);
  if (p.recommended) {
    EXPECT_TRUE(p.candidates[*p.recommended].fits);
  }
}

TEST(ShardedPlan, Llama8bOnP5RecommendsAFittingRowAndRanksHsdp) {
  const ShardedPlan p = *make_sharded_plan(cluster("p5.48xlarge", 4, "llama-3.1-8b"));
  ASSERT_TRUE(p.recommended.has_value());
  const ShardedCandidate& r = p.candidates[*p.recommended];
  EXPECT_TRUE(r.fits);
  // Among the rows that fit, nothing beats the recommendation unless it keeps the defaults.
  if (!p.keeps_defaults) {
    EXPECT_EQ(*p.recommended, 0u);
  }
  EXPECT_TRUE(std::any_of(p.candidates.begin(), p.candidates.end(),
                          [](const auto& c) { return c.strategy == ShardStrategy::Hsdp; }));
  // (DDP, FSDP and HSDP x prefetch {1,2} x reshard {on,off}, ZeRO-1/2/3) x recompute.
  EXPECT_EQ(p.candidates.size(), 24u);
  for (const ShardedCandidate& c : p.candidates) EXPECT_GT(c.step.step.value, 0) << c.label();
  // DDP's 16 bytes per parameter do not fit an 80 GB GPU; the sharded rows do.
  expect_fit_rule(p);
  EXPECT_FALSE(
      std::all_of(p.candidates.begin(), p.candidates.end(), [](const auto& c) { return c.fits; }));
}

TEST(ShardedPlan, AnUnknownPeakIsPlannedAtBothEndsOfItsPublishedFigures) {
  const auto with_range = [](double low, double high, const char* instance = "p5.48xlarge",
                             const char* model = "llama-3.2-1b") {
    PlanInputs in = cluster(instance, 2, model);
    in.cluster.instance.gpu.peak_fp16_flops = 0;
    in.cluster.instance.gpu.peak_fp16_published = topo::PublishedRange{low, high};
    return in;
  };
  const auto close = make_sharded_plan(with_range(989e12, 990e12));
  ASSERT_TRUE(close) << close.error().message;
  EXPECT_EQ(close->inputs.compute.peak_flops, 0);  // recorded as given
  EXPECT_TRUE(std::any_of(close->notes.begin(), close->notes.end(), [](const std::string& n) {
    return n.find("published figures disagree (989 to 990 TFLOP/s)") != n.npos;
  }));
  PlanInputs given = with_range(989e12, 990e12);
  given.compute.peak_flops = 989e12;
  const auto at_low = make_sharded_plan(given);
  ASSERT_TRUE(at_low);
  ASSERT_TRUE(close->recommended && at_low->recommended);
  EXPECT_EQ(close->candidates[*close->recommended].label(),
            at_low->candidates[*at_low->recommended].label());
  // gpt2-xl on two p6-b300: HSDP at 2,250 TFLOP/s, ZeRO-1 at 3,375 (checked first); planned
  // over that range it is refused, both named.
  std::string advice[2];
  for (const int end : {0, 1}) {
    PlanInputs in = with_range(2250e12, 3375e12, "p6-b300.48xlarge", "gpt2-xl");
    in.compute.peak_flops = end == 0 ? 2250e12 : 3375e12;
    const auto p = make_sharded_plan(in);
    ASSERT_TRUE(p && p->recommended);
    advice[end] = p->candidates[*p->recommended].label();
  }
  ASSERT_NE(advice[0], advice[1]);
  const auto wide = make_sharded_plan(with_range(2250e12, 3375e12, "p6-b300.48xlarge", "gpt2-xl"));
  ASSERT_FALSE(wide);
  const std::string& m = wide.error().message;
  EXPECT_NE(m.find("the advice depends on it: at 2250, Use " + advice[0]), m.npos) << m;
  EXPECT_NE(m.find("At 3375, Use " + advice[1]), m.npos) << m;
}

TEST(ShardedPlan, HsdpShardsWithinWhatNcclCountsAsANode) {
  // Two GB200 NVL72 racks of 18 hosts: NCCL sees two nodes of 72 GPUs (MNNVL), so HSDP shards
  // over 72 and replicates twice, and its emitted mesh says so; one rack is one node, where
  // HSDP would be FSDP and is not listed.
  PlanInputs racks = cluster("gb200-nvl72", 36, "gpt2-xl");
  racks.compute.peak_flops = 2250e12;
  const auto two = make_sharded_plan(racks);
  ASSERT_TRUE(two) << two.error().message;
  EXPECT_EQ(two->hsdp_replicas, 2);
  EXPECT_EQ(two->hsdp_shard_ranks, 72);
  const auto hsdp = std::find_if(two->candidates.begin(), two->candidates.end(),
                                 [](const auto& c) { return c.strategy == ShardStrategy::Hsdp; });
  ASSERT_NE(hsdp, two->candidates.end());
  EXPECT_EQ(hsdp->shard_ranks, 72);
  PlanInputs rack = cluster("gb200-nvl72", 2, "gpt2-xl");
  rack.compute.peak_flops = 2250e12;
  const auto one = make_sharded_plan(rack);
  ASSERT_TRUE(one) << one.error().message;  // was: "no NCCL algorithm ... ring: one rank"
  EXPECT_TRUE(std::none_of(one->candidates.begin(), one->candidates.end(),
                           [](const auto& c) { return c.strategy == ShardStrategy::Hsdp; }));
  // Eight p5 hosts: a host is NCCL's node.
  const auto p5 = make_sharded_plan(cluster("p5.48xlarge", 8, "gpt2-xl"));
  ASSERT_TRUE(p5);
  EXPECT_EQ(p5->hsdp_replicas, 8);
  EXPECT_EQ(p5->hsdp_shard_ranks, 8);
}

TEST(ShardedPlan, AnUnknownGpuMemoryChecksNothingAndSaysSo) {
  PlanInputs in = cluster("p5.48xlarge", 2, "llama-3.1-8b");
  in.cluster.instance.gpu.memory = Bytes(0);
  const auto p = make_sharded_plan(in);
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_TRUE(p->recommended);  // not "nothing fits" against a 0-byte GPU
  EXPECT_EQ(p->sentence.find("Nothing fits"), std::string::npos) << p->sentence;
  for (const ShardedCandidate& c : p->candidates) EXPECT_TRUE(c.fits);
  EXPECT_TRUE(std::any_of(p->notes.begin(), p->notes.end(), [](const std::string& n) {
    return n.find("\"gpu.memory_GiB\"") != n.npos;
  }));
  const auto j = nlohmann::json::parse(sharded_plan_to_json(*p));
  EXPECT_TRUE(j["candidates"][0]["fits"].is_null());
  // No file configures a row nobody checked.
  const auto files = emit_sharded(*p, "all");
  ASSERT_FALSE(files);
  EXPECT_NE(files.error().message.find("no file is written"), std::string::npos);
  // Published figures that disagree: fit checked against the smallest, and said.
  in.cluster.instance.gpu.memory_published = topo::PublishedRange{20.0 * (1 << 30), 80e9};
  const auto low = make_sharded_plan(in);
  ASSERT_TRUE(low) << low.error().message;
  EXPECT_EQ(low->gpu_memory.value, std::int64_t{20} << 30);
  EXPECT_TRUE(std::any_of(low->candidates.begin(), low->candidates.end(),
                          [](const ShardedCandidate& c) { return !c.fits; }));
  EXPECT_TRUE(std::any_of(low->notes.begin(), low->notes.end(), [](const std::string& n) {
    return n.find("published figures disagree (20 to 75 GiB)") != n.npos;
  }));
}

TEST(ShardedPlan, StoredPlanReplaysToTheSameRecommendation) {
  PlanInputs in = cluster("p5.48xlarge", 2, "llama-3.2-1b");
  in.framework = Framework::Fsdp;
  const ShardedPlan p = *make_sharded_plan(in);
  ASSERT_TRUE(p.recommended.has_value());
  const std::string json = sharded_plan_to_json(p);
  const Expected<StoredPlan> stored = read_plan_json(json, "plan.json");
  ASSERT_TRUE(stored) << stored.error().message;
  EXPECT_TRUE(stored->sharded);
  EXPECT_EQ(stored->sharded_row, p.candidates[*p.recommended].label());
  const ShardedPlan again = *replay_sharded_plan(*stored);
  EXPECT_EQ(sharded_plan_to_json(again), json);  // same inputs, same plan, no replay note
  // A stored recommendation this version would not make is said, not silently replaced.
  StoredPlan other = *stored;
  other.sharded_row = "zero1";
  const ShardedPlan noted = *replay_sharded_plan(other);
  ASSERT_FALSE(noted.notes.empty());
  EXPECT_NE(noted.notes.front().find("the stored plan (topotune 0.1.0) zero1"), std::string::npos)
      << noted.notes.front();
  // A sharded file whose inputs name a DDP framework is refused.
  std::string ddp = json;
  const std::string from = "\"framework\": \"fsdp\"";
  ASSERT_NE(ddp.find(from), std::string::npos);
  ddp.replace(ddp.find(from), from.size(), "\"framework\": \"ddp\"");
  EXPECT_FALSE(read_plan_json(ddp, "plan.json"));
}

TEST(ShardedEmitters, EachFileConfiguresTheBestFittingRowOfItsFamily) {
  ShardedPlan p;
  p.instance = "p4d.24xlarge";
  p.nodes = 4;
  p.gpus_per_host = 8;
  p.hsdp_replicas = 4;
  p.hsdp_shard_ranks = 8;
  p.model = "m";
  p.gpu_memory = Bytes(100);
  p.block_path = "model.layers";
  ShardedCandidate misfit;  // ranked first but does not fit: never emitted
  misfit.strategy = ShardStrategy::Fsdp;
  ShardedCandidate hsdp;
  hsdp.strategy = ShardStrategy::Hsdp;
  hsdp.prefetch = 2;
  hsdp.reshard_after_forward = false;
  hsdp.recompute = true;
  hsdp.fits = true;
  ShardedCandidate zero2;
  zero2.strategy = ShardStrategy::Zero2;
  zero2.fits = true;
  p.candidates = {misfit, hsdp, zero2};
  const std::vector<EmittedFile> files = *emit_sharded(p, "all");
  ASSERT_EQ(files.size(), 2u);
  const std::string& py = files[0].content;
  EXPECT_NE(py.find("plan row 2 (hsdp prefetch=2 reshard=false recompute)"), std::string::npos);
  EXPECT_NE(
      py.find("init_device_mesh(\"cuda\", (4, 8), mesh_dim_names=(\"replicate\", \"shard\"))"),
      std::string::npos)
      << py;
  EXPECT_NE(py.find("reshard_after_forward=False"), std::string::npos);
  EXPECT_NE(py.find("blocks[i] = checkpoint_wrapper(block)"), std::string::npos);
  EXPECT_NE(py.find("set_modules_to_forward_prefetch(list(blocks[i + 1:i + 1 + 2]))"),
            std::string::npos);
  const std::string& ds = files[1].content;
  EXPECT_NE(ds.find("plan row 3 (zero2)"), std::string::npos);
  EXPECT_NE(ds.find("\"stage\": 2"), std::string::npos);
  EXPECT_NE(ds.find("\"overlap_comm\": false"), std::string::npos);
  EXPECT_NE(ds.find("\"allgather_bucket_size\": 500000000"), std::string::npos);
  // Names are data: a block path that is not a Python attribute path is refused.
  p.block_path = "model.layers; import os";
  EXPECT_FALSE(emit_sharded(p, "fsdp"));
  EXPECT_FALSE(emit_sharded(p, "nccl-env"));
}

}  // namespace
}  // namespace topotune::tune
