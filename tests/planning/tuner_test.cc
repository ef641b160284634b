// Tuner and timers: hand-derived closed forms, and a search whose optimum is derived by hand.

#include "planning/tuner.h"

#include <gtest/gtest.h>

#include "algorithms/registry.h"
#include "planning/framework.h"
#include "timing/closed_form_timer.h"

namespace topotune::tune {
namespace {

// allreduce(x) = alpha + x / bw per algorithm; everything else unsupported.
class FakeTimer final : public CollectiveTimer {
 public:
  std::string name() const override { return "fake"; }
  Expected<Seconds> allreduce(const AlgorithmChoice& a, Bytes b) const override {
    const double mib = b.as_double() / (1 << 20);
    switch (a.kind) {
      case AlgoKind::NcclDefault:
      case AlgoKind::NcclRing:
        return Seconds(1e-3 + mib / 8 * 1e-3);  // 1 ms + 8 MiB/ms
      case AlgoKind::NcclTree:
        return Seconds(0.5e-3 + mib / 4 * 1e-3);  // 0.5 ms + 4 MiB/ms
      default:
        return fail(Errc::Unsupported, "fake");
    }
  }
};

// 8 layers: forward 0.5 ms, backward 1 ms (measured at batch 1), one 1 Mi-element (4 MiB
// fp32) gradient each: the model of training_step_test.cc with a forward pass.
ModelProfile eight_layers() {
  ModelProfile m;
  m.name = "eight";
  m.measured_batch = 1;
  for (int i = 0; i < 8; ++i) {
    m.layers.push_back({"l" + std::to_string(i), 0, Seconds(1e-3), Seconds(0.5e-3)});
    m.params.push_back({"w" + std::to_string(i), 1 << 20, i, true});
  }
  return m;
}

TuneRequest request(const ModelProfile& m) {
  TuneRequest r;
  r.model = &m;
  r.compute.batch_per_gpu = 1;
  r.hosts = 2;
  r.gpus_per_host = 4;
  return r;
}

// Caps 1..32 MiB (+25). fp32, ring (1 ms + 8 MiB/ms), first bucket = cap = k tensors:
// exposed 5 ms (k=1), 2 (k=2, cap 8 MiB), 3 (k=4), 5 (k=7 at 25 MiB, k=8): see
// training_step_test.cc. bf16 halves the wire bytes: T = 1 + 0.25 k ms:
//   k=1: stream-bound from 1 ms, 8 x 1.25 -> ends 11: exposed 3;
//   k=2: 1.5 ms each at 2,4,6,8 -> ends 9.5: exposed 1.5 (the bf16 optimum);
//   k=4: 2 ms at 4, 8 -> ends 10: exposed 2.
// Tree (0.5 ms + 4 MiB/ms): fp32 k=1: 1.5 ms each, stream-bound to 13: exposed 5; k=2: 2.5 ms
// at 2,4,6,8 -> 12: exposed 4. bf16 k=1: 0.5 + 0.5 = 1 ms each, ready 1..8 -> ends 9:
// exposed 1 ms, the overall optimum (caps 1, 2 and 4 MiB all give k=1; ties go to the
// smallest cap). Steps: forward 4 ms + backward 8 ms + exposed: fp32 best 14 ms (ring,
// 8 MiB), overall best 13 ms (tree, bf16, 1 MiB).
TEST(Tuner, FindsTheHandDerivedOptimum) {
  const ModelProfile m = eight_layers();
  TuneRequest r = request(m);
  auto report = tune(r, FakeTimer{});
  ASSERT_TRUE(report) << report.error().message;
  const Candidate& best = report->candidates.front();
  EXPECT_EQ(best.dtype, sched::DataType::BF16);
  EXPECT_EQ(best.algo.kind, AlgoKind::NcclTree);
  EXPECT_EQ(best.bucket_cap, 1_MiB);
  EXPECT_NEAR(best.step.step.value, 13e-3, 1e-12);
  EXPECT_NEAR(best.step.exposed_comm.value, 1e-3, 1e-12);
  // 13 vs 14 ms is 7.7 % > the 2 % margin: bf16 is recommended.
  EXPECT_EQ(report->recommendation.dtype, sched::DataType::BF16);
  // rhd, ps, hierarchical are unsupported by the fake: skipped with a note each.
  EXPECT_FALSE(report->notes.empty());
  // (a) DDP defaults: first bucket 1 tensor (4 MiB >= 1 MiB) ready at 1 ms, 1.5 ms long; then
  // 7 tensors (28 MiB >= 25 MiB) ready at 8 ms, 1 + 3.5 = 4.5 ms: ends 12.5: exposed 4.5 ms.
  EXPECT_NEAR(report->baseline_ddp.step.exposed_comm.value, 4.5e-3, 1e-12);
  EXPECT_NEAR(report->baseline_ddp.step.step.value, 16.5e-3, 1e-12);
  // (b) Horovod defaults: every gradient alone in its 1 ms cycle: stream-bound to 13 ms.
  EXPECT_NEAR(report->baseline_horovod.step.step.value, 17e-3, 1e-12);
}

// Each candidate says whose bucketing its step simulated (the plan's JSON and the emitters
// read it): DDP's for the screen and baseline (a), Horovod's for baseline (b) and the sweep.
TEST(Tuner, CandidatesCarryTheFrameworkTheirStepSimulates) {
  const ModelProfile m = eight_layers();
  auto report = tune(request(m), FakeTimer{});
  ASSERT_TRUE(report) << report.error().message;
  for (const Candidate& c : report->candidates) EXPECT_EQ(c.framework, Framework::Ddp);
  EXPECT_EQ(report->baseline_ddp.framework, Framework::Ddp);
  EXPECT_EQ(report->baseline_horovod.framework, Framework::Horovod);
  EXPECT_EQ(report->horovod_best.framework, Framework::Horovod);
  EXPECT_GT(report->baseline_horovod.cycle_time.value, 0);
}

TEST(Tuner, WithinTheMarginFp32IsRecommended) {
  const ModelProfile m = eight_layers();
  TuneRequest r = request(m);
  r.dtype_margin = 0.10;  // 7.7 % is inside it
  auto report = tune(r, FakeTimer{});
  ASSERT_TRUE(report);
  EXPECT_EQ(report->recommendation.dtype, sched::DataType::F32);
  EXPECT_EQ(report->recommendation.algo.kind, AlgoKind::NcclDefault);  // = ring; sorts first
  EXPECT_EQ(report->recommendation.bucket_cap, 8_MiB);
  EXPECT_NEAR(report->recommendation.step.step.value, 14e-3, 1e-12);
}

TEST(Tuner, RankTimerReordersTheTopCandidates) {
  // The rank timer makes tree the fast one: it must win although the screen preferred ring.
  class TreeFast final : public CollectiveTimer {
   public:
    std::string name() const override { return "tree-fast"; }
    Expected<Seconds> allreduce(const AlgorithmChoice& a, Bytes b) const override {
      const double t = b.as_double() / (64.0 * (1 << 20)) * 1e-3;
      return Seconds(a.kind == AlgoKind::NcclTree ? t : 10 * t);
    }
  };
  const ModelProfile m = eight_layers();
  TuneRequest r = request(m);
  r.top_k = 1000;
  TreeFast rank;
  auto report = tune(r, FakeTimer{}, &rank);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->rank_timer, "tree-fast");
  EXPECT_EQ(report->recommendation.algo.kind, AlgoKind::NcclTree);
  EXPECT_EQ(report->recommendation.timer, "tree-fast");
}

// Channel variants enter the grid only where the screen finds them faster than the default.
TEST(Tuner, KeepsOnlyChannelVariantsThatAreFasterSomewhere) {
  class ChannelTimer final : public CollectiveTimer {
   public:
    std::string name() const override { return "channels"; }
    Expected<Seconds> allreduce(const AlgorithmChoice& a, Bytes b) const override {
      const double mib = b.as_double() / (1 << 20);
      if (a.kind == AlgoKind::NcclDefault) return Seconds(1e-3 + mib / 8 * 1e-3);
      if (a.kind != AlgoKind::NcclRing) return fail(Errc::Unsupported, "channels fake");
      const double rate = a.channels == 4 ? 16 : a.channels == 8 ? 4 : 8;  // MiB per ms
      return Seconds(1e-3 + mib / rate * 1e-3);
    }
  };
  const ModelProfile m = eight_layers();
  TuneRequest r = request(m);
  r.algorithms = {AlgorithmChoice{AlgoKind::NcclDefault}, AlgorithmChoice{AlgoKind::NcclRing}};
  r.channel_counts = {2, 4, 8};
  auto report = tune(r, ChannelTimer{});
  ASSERT_TRUE(report) << report.error().message;
  // ring/ch2 equals ring, ring/ch8 is slower, nccl-default ignores channels: 5 pruned.
  EXPECT_EQ(report->channel_variants_kept, 1);
  EXPECT_EQ(report->channel_variants_pruned, 5);
  EXPECT_EQ(report->candidates.front().algo.name(), "nccl:ring/ch4");
  for (const Candidate& c : report->candidates) {
    EXPECT_TRUE(c.algo.channels == 0 || c.algo.channels == 4) << c.algo.name();
  }
}

// Channel counts of topotune schedules are tried by the rank timer (the screen cannot see
// them): doubling while each count beats the previous one.
TEST(Tuner, RankStageTriesChannelCountsOfTopotuneSchedules) {
  // allreduce(x) = alpha + x / rate, rate in MiB per ms.
  const auto time = [](double alpha_ms, double rate, Bytes b) {
    return Seconds((alpha_ms + b.as_double() / (1 << 20) / rate) * 1e-3);
  };
  class Screen final : public CollectiveTimer {
   public:
    explicit Screen(decltype(time) t) : t_(t) {}
    std::string name() const override { return "screen"; }
    Expected<Seconds> allreduce(const AlgorithmChoice& a, Bytes b) const override {
      if (a.kind == AlgoKind::Hierarchical) return t_(1, 8, b);  // the same for every count
      if (a.kind == AlgoKind::NcclDefault) return t_(2, 8, b);
      return fail(Errc::Unsupported, "screen fake");
    }
    decltype(time) t_;
  };
  class Rank final : public CollectiveTimer {
   public:
    explicit Rank(decltype(time) t) : t_(t) {}
    std::string name() const override { return "rank"; }
    Expected<Seconds> allreduce(const AlgorithmChoice& a, Bytes b) const override {
      if (a.kind != AlgoKind::Hierarchical) return t_(2, 8, b);
      const double rate = a.channels == 2 ? 12 : a.channels >= 4 ? 16 : 8;  // ch8 = ch4
      return t_(1, rate, b);
    }
    decltype(time) t_;
  };
  const ModelProfile m = eight_layers();
  TuneRequest r = request(m);
  r.algorithms = {AlgorithmChoice{AlgoKind::NcclDefault},
                  AlgorithmChoice{AlgoKind::Hierarchical, AlgoKind::Ring}};
  r.channel_counts = {1, 2, 4, 8};
  const Screen screen(time);
  const Rank rank(time);
  auto report = tune(r, screen, &rank);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->channel_variants_pruned, 8);  // every screen variant equals its default
  EXPECT_EQ(report->channel_variants_kept, 2);    // ch2 and ch4 from the rank stage; ch8 = ch4
  std::vector<std::string> names;
  for (const Candidate& c : report->candidates) names.push_back(c.algo.name());
  EXPECT_EQ(std::count(names.begin(), names.end(), "hierarchical(ring)/ch2"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "hierarchical(ring)/ch4"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "hierarchical(ring)/ch8"), 0);
  EXPECT_EQ(report->candidates.front().algo.name(), "hierarchical(ring)/ch4");
  EXPECT_EQ(report->candidates.front().timer, "rank");
}

// Overrides (16-bit wire dtype, channel count) must each buy more than the margin.
TEST(Tuner, RecommendsTheSimplestCandidateWithinTheMargin) {
  const auto cand = [](const char* algo, sched::DataType d, double ms) {
    Candidate c;
    c.algo = *parse_algorithm_choice(algo);
    c.dtype = d;
    c.step.step = Seconds(ms * 1e-3);
    return c;
  };
  const std::vector<Candidate> ranked = {cand("nccl:ring/ch4", sched::DataType::BF16, 100),
                                         cand("nccl:ring/ch4", sched::DataType::F32, 101),
                                         cand("nccl:ring", sched::DataType::BF16, 101.5),
                                         cand("nccl:ring", sched::DataType::F32, 103)};
  // 2 %: limit 102 ms. No override-free candidate is inside; of those with one override,
  // ring/ch4 fp32 (101) comes first.
  EXPECT_EQ(simplest_within_margin(ranked, 0.02), &ranked[1]);
  EXPECT_EQ(simplest_within_margin(ranked, 0.05), &ranked[3]);  // limit 105: plain fp32
  EXPECT_EQ(simplest_within_margin(ranked, 0.0), &ranked[0]);   // nothing else is as fast
  // Without channel counts: best ring bf16 (101.5), limit 103.53: plain fp32 (103).
  const auto plain = [](const Candidate& c) { return c.algo.channels == 0; };
  EXPECT_EQ(simplest_within_margin(ranked, 0.02, plain), &ranked[3]);
  EXPECT_EQ(simplest_within_margin({}, 0.02), nullptr);
}

// The algorithm is an override too: nccl-default has none, ring/tree one (NCCL_ALGO), the
// others two (they need topotune's runtime).
TEST(Tuner, PrefersWhatStockNcclRunsWithinTheMargin) {
  const auto cand = [](const char* algo, double ms) {
    Candidate c;
    c.algo = *parse_algorithm_choice(algo);
    c.step.step = Seconds(ms * 1e-3);
    return c;
  };
  const std::vector<Candidate> ranked = {cand("rhd", 100), cand("hierarchical(ring)", 100.5),
                                         cand("nccl:ring", 101.5), cand("nccl:default", 103)};
  // 2 %: limit 102 ms. nccl-default (0 overrides) is outside; ring (1) is inside.
  EXPECT_EQ(simplest_within_margin(ranked, 0.02), &ranked[2]);
  EXPECT_EQ(simplest_within_margin(ranked, 0.05), &ranked[3]);  // limit 105: nccl-default
  EXPECT_EQ(simplest_within_margin(ranked, 0.01), &ranked[0]);  // limit 101: rhd first (2)
  // Without ring and NCCL's own (the emulated clusters' --algos): rhd and hierarchical(ring)
  // have two overrides each; the faster comes first.
  const auto topotune_only = [](const Candidate& c) {
    return c.algo.kind != AlgoKind::NcclRing && c.algo.kind != AlgoKind::NcclDefault;
  };
  EXPECT_EQ(simplest_within_margin(ranked, 0.02, topotune_only), &ranked[0]);
}

// NCCL runs one thread block per channel: with the GPU's SM count known, every candidate's
// backward compute is scaled by SMs / (SMs - channels), its /chN count or NCCL's own.
TEST(Tuner, ChargesTheSmsChannelsTakeFromBackwardCompute) {
  const ModelProfile m = eight_layers();
  TuneRequest r = request(m);
  r.algorithms = {AlgorithmChoice{AlgoKind::NcclDefault}, AlgorithmChoice{AlgoKind::NcclRing}};
  r.dtypes = {sched::DataType::F32};
  r.channel_counts = {60};
  auto free = tune(r, FakeTimer{});
  ASSERT_TRUE(free) << free.error().message;
  r.gpu_sms = 100;
  r.default_channels = 20;
  auto charged = tune(r, FakeTimer{});
  ASSERT_TRUE(charged) << charged.error().message;
  // Backward is 8 x 1 ms; NCCL's own 20 channels of 100 SMs: x 100/80 = 10 ms.
  const Candidate& base = charged->baseline_ddp;
  EXPECT_EQ(base.channels_charged, 20);
  EXPECT_DOUBLE_EQ(base.backward_scale, 1.25);
  EXPECT_NEAR(base.step.backward.value, free->baseline_ddp.step.backward.value * 1.25, 1e-12);
  EXPECT_NEAR(base.step.backward.value, 10e-3, 1e-12);
  EXPECT_EQ(free->baseline_ddp.channels_charged, 0);  // SMs unknown: nothing charged
  // The fake timer ignores channels, so no /ch60 variant is kept; an explicit one is charged
  // its own 60 channels: x 100/40.
  r.algorithms = {AlgorithmChoice{AlgoKind::NcclRing, AlgoKind::Ring, 0, 60}};
  r.channel_counts = {};
  auto ch60 = tune(r, FakeTimer{});
  ASSERT_TRUE(ch60) << ch60.error().message;
  const Candidate& c = ch60->candidates.front();
  EXPECT_EQ(c.channels_charged, 60);
  EXPECT_NEAR(c.step.backward.value, 8e-3 * 2.5, 1e-12);
}

// A channel override is recommended only where it beats the best candidate at NCCL's own
// count by more than the model's error (kChannelOverrideMargin, 7.3 %).
TEST(Tuner, ChannelOverrideMustBeatNcclsOwnCountByTheModelError) {
  // ring/ch4: alpha_ms + x / rate (MiB per ms); everything else 1 ms + x / 8.
  class Ch4 final : public CollectiveTimer {
   public:
    Ch4(double alpha_ms, double rate) : alpha_ms_(alpha_ms), rate_(rate) {}
    std::string name() const override { return "ch4"; }
    Expected<Seconds> allreduce(const AlgorithmChoice& a, Bytes b) const override {
      if (a.kind != AlgoKind::NcclDefault && a.kind != AlgoKind::NcclRing) {
        return fail(Errc::Unsupported, "ch4 fake");
      }
      const double mib = b.as_double() / (1 << 20);
      if (a.channels == 4) return Seconds((alpha_ms_ + mib / rate_) * 1e-3);
      return Seconds((1 + mib / 8) * 1e-3);
    }
    double alpha_ms_;
    double rate_;
  };
  const ModelProfile m = eight_layers();
  TuneRequest r = request(m);
  r.algorithms = {AlgorithmChoice{AlgoKind::NcclDefault}, AlgorithmChoice{AlgoKind::NcclRing}};
  r.dtypes = {sched::DataType::F32};
  r.channel_counts = {4};
  r.dtype_margin = 0;  // only the channel rule may pass over the fastest row
  // Slightly faster channels: the fastest row, yet inside the model's error.
  auto near = tune(r, Ch4(1, 9));
  ASSERT_TRUE(near) << near.error().message;
  ASSERT_EQ(near->candidates.front().algo.channels, 4);
  const double own = near->recommendation.step.step.value;
  EXPECT_GT(own, near->candidates.front().step.step.value);
  EXPECT_GT(near->candidates.front().step.step.value, own * (1 - kChannelOverrideMargin));
  EXPECT_EQ(near->recommendation.algo.channels, 0) << near->recommendation.algo.name();
  // Channels that hide nearly all communication: beyond the error, recommended.
  auto far = tune(r, Ch4(0.01, 1024));
  ASSERT_TRUE(far) << far.error().message;
  EXPECT_LT(far->candidates.front().step.step.value, far->recommendation.step.step.value * 1.0001);
  EXPECT_EQ(far->recommendation.algo.channels, 4) << far->recommendation.algo.name();
}

// Only the families in channel_kinds are swept (plan --algos X/chN).
TEST(Tuner, SweepsChannelsOnlyOfTheFamiliesAsked) {
  class AnyChannels final : public CollectiveTimer {
   public:
    std::string name() const override { return "any"; }
    Expected<Seconds> allreduce(const AlgorithmChoice& a, Bytes b) const override {
      if (!a.is_nccl()) return fail(Errc::Unsupported, "nccl only");
      const double rate = 8 + a.channels;  // more channels, faster
      return Seconds(1e-3 + b.as_double() / (1 << 20) / rate * 1e-3);
    }
  };
  const ModelProfile m = eight_layers();
  TuneRequest r = request(m);
  r.algorithms = {AlgorithmChoice{AlgoKind::NcclDefault}, AlgorithmChoice{AlgoKind::NcclRing}};
  r.channel_counts = {2, 4};
  r.channel_kinds = {AlgoKind::NcclRing};
  auto report = tune(r, AnyChannels{});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->channel_variants_kept, 2);
  for (const Candidate& c : report->candidates) {
    EXPECT_TRUE(c.algo.channels == 0 || c.algo.kind == AlgoKind::NcclRing) << c.algo.name();
  }
}

TEST(AlgorithmChoice, NamesRoundTrip) {
  for (const AlgorithmChoice& a : default_algorithms(8)) {
    auto back = parse_algorithm_choice(a.name());
    ASSERT_TRUE(back) << a.name();
    EXPECT_EQ(*back, a) << a.name();
  }
  EXPECT_FALSE(parse_algorithm_choice("hierarchical(hierarchical(ring))"));
  EXPECT_FALSE(parse_algorithm_choice("bogus"));
}

TEST(CachedTimer, AsksOncePerSize) {
  const FakeTimer t;
  const CachedTimer c(t);
  const AlgorithmChoice ring{AlgoKind::NcclRing};
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.allreduce(ring, 1_MiB));
    ASSERT_TRUE(c.allreduce(ring, 2_MiB));
  }
  EXPECT_EQ(c.misses(), 2);
}

// On BERT-large with p4d-like figures the fp32 nccl-default bucket sweep has the expected
// shape: 1 MiB buckets are latency-bound, one whole-model bucket loses the overlap, and the
// best cap is strictly between them.
TEST(Tuner, BertLargeSweepHasAnInteriorOptimum) {
  auto m = load_model_profile("bert-large");
  ASSERT_TRUE(m);
  // 4 hosts x 8 GPUs with p4d-like closed-form figures (the ClosedFormTimer's own forms).
  auto layout = algo::flat_layout(32, 8);
  ASSERT_TRUE(layout);
  algo::CostParams p;
  p.intra = {Seconds(2e-6), BytesPerSec(240e9)};
  p.inter = {Seconds(15e-6), BytesPerSec(42.5e9 / 4)};
  p.nic_sharing = 2;
  const ClosedFormTimer timer(*layout, p, Seconds(10e-6));
  TuneRequest r;
  r.model = &*m;
  r.hosts = 4;
  r.gpus_per_host = 8;
  r.compute.batch_per_gpu = 16;
  r.compute.peak_flops = 312e12;
  r.compute.efficiency = 0.4;
  r.algorithms = {AlgorithmChoice{AlgoKind::NcclDefault}};
  r.dtypes = {sched::DataType::F32};
  auto report = tune(r, timer);
  ASSERT_TRUE(report) << report.error().message;
  const Candidate& best = report->candidates.front();
  const auto caps = default_bucket_caps(*m);
  double first = 0, last = 0;
  for (const Candidate& c : report->candidates) {
    if (c.bucket_cap == caps.front()) first = c.step.step.value;
    if (c.bucket_cap == caps.back()) last = c.step.step.value;
  }
  EXPECT_GT(best.bucket_cap, caps.front());
  EXPECT_LT(best.bucket_cap, caps.back());
  EXPECT_LT(best.step.step.value, first);
  EXPECT_LT(best.step.step.value, last);
}

}  // namespace
}  // namespace topotune::tune

namespace topotune::tune {
namespace {

// The closed-form timer passes the algorithms module's closed forms through, plus the launch
// cost, and nccl-default takes the faster of ring and tree.
TEST(ClosedFormTimer, AddsTheLaunchCostToTheAlgorithmsClosedForm) {
  auto layout = algo::flat_layout(8, 4);
  ASSERT_TRUE(layout);
  algo::CostParams p;
  p.intra = {Seconds(1e-6), BytesPerSec(100e9)};
  p.inter = {Seconds(10e-6), BytesPerSec(10e9)};
  const ClosedFormTimer timer(*layout, p, Seconds(5e-6));
  sched::CollectiveSpec spec;
  spec.ranks = 8;
  spec.bytes = 64_MiB;
  for (const char* name : {"ring", "tree"}) {
    auto alg = algo::make_algorithm(name, {});
    ASSERT_TRUE(alg);
    auto want = (*alg)->closed_form(spec, *layout, p);
    ASSERT_TRUE(want) << want.error().message;
    auto got = timer.allreduce(*parse_algorithm_choice(name), 64_MiB);
    ASSERT_TRUE(got) << got.error().message;
    EXPECT_DOUBLE_EQ(got->value, want->value + 5e-6) << name;
  }
  const double ring = timer.allreduce({AlgoKind::Ring}, 64_MiB)->value;
  const double tree = timer.allreduce({AlgoKind::DbTree}, 64_MiB)->value;
  EXPECT_DOUBLE_EQ(timer.allreduce({AlgoKind::NcclDefault}, 64_MiB)->value, std::min(ring, tree));
  EXPECT_TRUE(timer.allreduce(*parse_algorithm_choice("hierarchical(rhd)"), 64_MiB));
  EXPECT_TRUE(timer.allreduce(*parse_algorithm_choice("ps(k=2)"), 64_MiB));
}

}  // namespace
}  // namespace topotune::tune

namespace topotune::tune {
namespace {

// The capability table: DDP and Horovod run NCCL's algorithms (any channel count); Horovod
// also hierarchical(ring) (HOROVOD_TORUS_ALLREDUCE), DDP only once topotune's comm hook
// ships; SMDDP none (its algorithm is not modelled); topotune's runtime every schedule.
TEST(Framework, CapabilityTable) {
  const auto runs = [](Framework f, const char* name) {
    return framework_runs(f, *parse_algorithm_choice(name));
  };
  for (const char* n : {"nccl:default", "nccl:ring", "nccl:tree/ch4"}) {
    EXPECT_TRUE(runs(Framework::Ddp, n)) << n;
    EXPECT_TRUE(runs(Framework::Horovod, n)) << n;
    EXPECT_FALSE(runs(Framework::Topotune, n)) << n;
    EXPECT_FALSE(runs(Framework::Smddp, n)) << n;
  }
  EXPECT_TRUE(runs(Framework::Horovod, "hierarchical(ring)"));
  EXPECT_FALSE(runs(Framework::Horovod, "hierarchical(rhd)"));
  EXPECT_FALSE(runs(Framework::Horovod, "hierarchical(ring)/ch2"));
  EXPECT_EQ(runs(Framework::Ddp, "hierarchical(ring)"), kDdpHierarchicalHook);
  EXPECT_FALSE(runs(Framework::Ddp, "hierarchical(rhd)"));
  for (const char* n : {"ring", "dbtree", "rhd", "ps(k=2)", "hierarchical(ps(k=2))/ch4"}) {
    EXPECT_TRUE(runs(Framework::Topotune, n)) << n;
    EXPECT_FALSE(runs(Framework::Ddp, n)) << n;
  }
  for (Framework f : all_frameworks()) EXPECT_EQ(*parse_framework(framework_name(f)), f);
  EXPECT_FALSE(parse_framework("pytorch"));
  EXPECT_TRUE(smddp_supported("ml.p4d.24xlarge"));
  EXPECT_FALSE(smddp_supported("ml.p5.48xlarge"));
}

}  // namespace
}  // namespace topotune::tune
