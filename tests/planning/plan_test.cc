// Plans: JSON round trip (replay gives the same answer), determinism, and the emitters.

#include "planning/plan.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <tuple>

#include "algorithms/rank_layout.h"
#include "core/string_printf.h"
#include "planning/emitters.h"
#include "planning/error_band.h"
#include "timing/model_timers.h"
#include "timing/nccl_timer.h"
#include "timing/schedule_algorithm.h"
#include "timing/simulator_timer.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {
namespace {

topo::ClusterSpec p4d(int hosts) { return *topo::make_cluster_spec("p4d.24xlarge", hosts); }

PlanInputs inputs(int hosts, const char* model = "bert-large") {
  PlanInputs in;
  EXPECT_TRUE(set_plan_cluster(in, p4d(hosts), "\"p4d.24xlarge\""));
  in.model = *load_model_profile(model);
  in.compute.batch_per_gpu = 8;
  return in;
}

TEST(ClusterShape, ReadsTheTopology) {
  auto s = cluster_shape(p4d(4));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->ranks(), 32);
  EXPECT_EQ(s->hosts, 4);
  // p4d: 12 NVLinks x 25 GB/s into the NVSwitch at the topology's NVLink efficiency 0.8, and
  // 4 x 100 Gb/s EFA at its network efficiency 0.85 (topology/model_defaults.cc).
  EXPECT_DOUBLE_EQ(s->intra_bw.value, 300e9 * 0.8);
  EXPECT_DOUBLE_EQ(s->host_net_bw.value, 50e9 * 0.85);
  EXPECT_GT(s->net_latency, s->intra_latency);
  EXPECT_DOUBLE_EQ(s->peak_flops, 312e12);
  EXPECT_TRUE(s->nvswitch);
}

TEST(Plan, JsonHasTheDocumentedShapeAndReplaysToTheSameText) {
  auto plan = make_plan(inputs(4));
  ASSERT_TRUE(plan) << plan.error().message;
  const std::string text = plan_to_json(*plan);
  for (const char* key :
       {"\"instance\": \"p4d.24xlarge\"", "\"nodes\": 4", "\"model\": \"bert-large\"",
        "\"recommendation\"", "\"bucket_bytes\"", "\"comm_dtype\"", "\"step_time_s\"",
        "\"exposed_comm_s\"", "\"baselines\"", "\"candidates\"", "\"timeline\"", "\"inputs\"",
        "\"model_profile\"", "\"version\""}) {
    EXPECT_NE(text.find(key), std::string::npos) << key;
  }
  auto stored = read_plan_json(text, "plan.json");
  ASSERT_TRUE(stored) << stored.error().message;
  auto again = make_plan(stored->inputs);
  ASSERT_TRUE(again);
  EXPECT_EQ(plan_to_json(*again), text);
  EXPECT_EQ(stored->algorithm, plan->report.recommendation.algo.name());
  // Screened by the algorithms module's closed forms; channels searched up to MAXCHANNELS.
  EXPECT_NE(plan->report.screen_timer.find("closed forms (algorithms/cost_model)"),
            std::string::npos);
  EXPECT_EQ(plan->report.channel_variants_kept + plan->report.channel_variants_pruned > 0, true);
  EXPECT_NE(text.find("\"nccl\": {"), std::string::npos);
  // A plan screened by the removed alpha-beta timer: its replay is an error, not a new answer.
  std::string old = text;
  const std::string timer = "\"timer\": \"closed-form\"";
  ASSERT_NE(old.find(timer), std::string::npos);
  old.replace(old.find(timer), timer.size(), "\"timer\": \"alpha-beta\"");
  const auto refused = read_plan_json(old, "old.json");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("unknown screening timer 'alpha-beta'"),
            std::string::npos);
}

// The recommendation for a framework is a candidate it runs (or its defaults), beats the
// defaults by the margin, is within the margin of the fastest candidate it runs that the final
// timer timed, and is the first row listed.
TEST(Plan, RecommendationIsRunnableAndBeatsTheDefaultsByTheMargin) {
  for (Framework f : {Framework::Ddp, Framework::Horovod, Framework::Topotune}) {
    PlanInputs in = inputs(4);
    in.framework = f;
    auto plan = make_plan(in);
    ASSERT_TRUE(plan) << plan.error().message;
    const Candidate& rec = plan->report.recommendation;
    const Candidate& defaults = framework_defaults(*plan);
    if (plan->keeps_defaults) {
      EXPECT_TRUE(same_configuration(rec, defaults));
    } else {
      EXPECT_TRUE(framework_runs(f, rec.algo)) << rec.algo.name();
      EXPECT_LT(rec.step.step.value, defaults.step.step.value * (1 - kDefaultDtypeMargin));
    }
    EXPECT_EQ(listed_candidates(*plan, 5).front(), &rec);
    for (const Candidate& c : plan->report.candidates) {
      if (c.timer != rec.timer || !framework_runs(f, c.algo) || f == Framework::Horovod) continue;
      EXPECT_LE(rec.step.step.value, c.step.step.value * (1 + kDefaultDtypeMargin))
          << framework_name(f) << ": " << c.algo.name();
    }
    const std::string sentence = recommendation_sentence(*plan);
    EXPECT_EQ(sentence.find("needs topotune's runtime"), std::string::npos);
    if (f == Framework::Ddp) {
      EXPECT_NE(sentence.find("vs DDP's defaults"), std::string::npos);
    }
  }
}

TEST(Plan, BadPlanJsonIsAnError) {
  EXPECT_FALSE(read_plan_json("{}", "p.json"));
  EXPECT_FALSE(read_plan_json("not json", "p.json"));
  EXPECT_FALSE(read_plan_json(R"({"schema":"topotune.plan/1"})", "p.json"));
}

TEST(Plan, ReplayNumbersAreReadAsTheirJsonTypesInRange) {
  // Before: batch_per_gpu took true, 1.5 and wrapped values; bucket_caps [1e300] became
  // -9223372036854775808; recommendation.bucket_bytes 1e300 was accepted.
  using J = nlohmann::ordered_json;
  auto plan = make_plan(inputs(2));
  ASSERT_TRUE(plan) << plan.error().message;
  const J good = J::parse(plan_to_json(*plan));
  ASSERT_TRUE(read_plan_json(good.dump(), "p.json"));
  const std::string batch = "batch_per_gpu must be an integer in [1, 1048576], got ";
  const std::string cap = "must be an integer in [1, 1099511627776], got ";
  const std::tuple<const char*, J, std::string> cases[] = {
      {"/inputs/compute/batch_per_gpu", true, batch + "true"},
      {"/inputs/compute/batch_per_gpu", 1.5, batch + "1.5"},
      {"/inputs/compute/batch_per_gpu", 4294967304LL, batch + "4294967304"},
      {"/inputs/compute/batch_per_gpu", 2147483648LL, batch + "2147483648"},
      {"/inputs/compute/batch_per_gpu", 0, batch + "0"},
      {"/inputs/bucket_caps", J::array({1e300}), "bucket_caps " + cap + "1e+300"},
      {"/inputs/bucket_caps", J::array({-1}), "bucket_caps " + cap + "-1"},
      {"/recommendation/bucket_bytes", 1e300, "bucket_bytes " + cap + "1e+300"},
      {"/recommendation/bucket_bytes", 2199023255552LL, "bucket_bytes " + cap + "2199023255552"},
      {"/inputs/compute/efficiency", true, "efficiency must be a number, got true"},
      {"/inputs/compute/efficiency", 5e-324, "compute efficiency must be in [0.001, 1]"},
      {"/inputs/compute/peak_flops", 1e-300, "peak FLOP/s must be 0 or in [1e9, 1e17]"},
  };
  for (const auto& [pointer, value, needle] : cases) {
    J j = good;
    j[J::json_pointer(pointer)] = value;
    const auto stored = read_plan_json(j.dump(), "p.json");
    ASSERT_FALSE(stored) << pointer << " = " << value.dump();
    EXPECT_NE(stored.error().message.find(needle), std::string::npos) << stored.error().message;
  }
}

std::string file(const std::vector<EmittedFile>& files, const std::string& name) {
  for (const EmittedFile& f : files) {
    if (f.name == name) return f.content;
  }
  ADD_FAILURE() << name << " not emitted";
  return "";
}

TEST(Emitters, AllFilesWithAWhyForEveryValue) {
  auto plan = make_plan(inputs(4));
  ASSERT_TRUE(plan);
  auto files = emit(*plan, "all");
  ASSERT_TRUE(files);
  // Five kinds, and the tuner plugin's rules for the DDP hook the default plan runs.
  ASSERT_EQ(files->size(), 6u);
  EXPECT_NE(file(*files, "nccl_tuner_rules.txt").find("\nreducescatter "), std::string::npos);
  for (const EmittedFile& f : *files) {
    // Every assignment line is preceded by a comment line (or carries one).
    std::istringstream in(f.content);
    std::string line, previous;
    while (std::getline(in, line)) {
      const bool assignment = line.find('=') != std::string::npos && line[0] != '#' &&
                              line.rfind("set ", 0) != 0 && line.rfind("exec ", 0) != 0 &&
                              line.rfind("model = DDP", 0) != 0;
      if (assignment && line.find('#') == std::string::npos) {
        const auto first = previous.find_first_not_of(' ');
        EXPECT_TRUE(first != std::string::npos && previous[first] == '#')
            << f.name << ": '" << line << "' has no comment above it";
      }
      previous = line;
    }
  }
  const std::string ddp = file(*files, "ddp_snippet.py");
  EXPECT_NE(ddp.find("bucket_cap_mb="), std::string::npos);
  EXPECT_NE(ddp.find("gradient_as_bucket_view=True"), std::string::npos);
  const std::string hvd = file(*files, "horovod.env");
  EXPECT_NE(hvd.find("HOROVOD_FUSION_THRESHOLD="), std::string::npos);
  EXPECT_NE(hvd.find("HOROVOD_CYCLE_TIME="), std::string::npos);
  // Horovod's GPU-direct path (torus), never the host-staged MPI one (hierarchical).
  EXPECT_NE(hvd.find("\nHOROVOD_TORUS_ALLREDUCE=1\n"), std::string::npos) << hvd;
  EXPECT_EQ(hvd.find("\nHOROVOD_HIERARCHICAL_ALLREDUCE="), std::string::npos) << hvd;
  EXPECT_NE(file(*files, "sagemaker_distribution.py").find("distribution = "), std::string::npos);
}

TEST(Emitters, UnknownKindIsAnError) {
  auto plan = make_plan(inputs(2));
  ASSERT_TRUE(plan);
  auto files = emit(*plan, "slurm");
  ASSERT_FALSE(files);
  EXPECT_EQ(files.error().code, Errc::InvalidArgument);
}

// A plan that fixes the algorithm, the protocol and a channel count carries all three in the
// tuner plugin's rules, one line per bucket range, and nccl.env only loads the plugin.
TEST(Emitters, ProtocolAndChannelsOfTheChosenNcclPlan) {
  auto plan = make_plan(inputs(4));
  ASSERT_TRUE(plan);
  Plan p = *plan;
  p.keeps_defaults = false;
  p.report.recommendation.framework = Framework::Ddp;
  p.report.recommendation.algo = *parse_algorithm_choice("nccl:ring/ch16");
  p.report.recommendation.dtype = sched::DataType::F32;
  p.nccl_rules = {{1000, 2000, "ring", "LL128", 16}, {3000, 9000, "ring", "Simple", 16}};
  auto files = emit(p, "nccl-env");
  ASSERT_TRUE(files);
  ASSERT_EQ(files->size(), 2u);
  const std::string env = file(*files, "nccl.env");
  for (const char* name :
       {"NCCL_ALGO=", "NCCL_PROTO=", "NCCL_MIN_NCHANNELS=", "NCCL_MAX_NCHANNELS="}) {
    EXPECT_EQ(env.find(std::string("\n") + name), std::string::npos) << name << "\n" << env;
  }
  EXPECT_NE(env.find("\nNCCL_TUNER_PLUGIN=topotune\n"), std::string::npos) << env;
  EXPECT_NE(env.find("\nNCCL_TUNER_TOPOTUNE_RULES=nccl_tuner_rules.txt\n"), std::string::npos);
  EXPECT_EQ(env.find("No tuner plugin is configured"), std::string::npos) << env;
  const std::string rules = file(*files, "nccl_tuner_rules.txt");
  const int ranks = 4 * p.cluster.shape.gpus_per_host;
  EXPECT_NE(rules.find("\nallreduce 1000 2000 4 " + std::to_string(ranks) + " ring LL128 16\n"),
            std::string::npos)
      << rules;
  EXPECT_NE(rules.find("\nallreduce 3000 9000 4 " + std::to_string(ranks) + " ring Simple 16\n"),
            std::string::npos)
      << rules;
  // NCCL's own choice with its own channels: no plugin, no rules, and nccl.env says why.
  Plan own_choice = p;
  own_choice.report.recommendation.algo = *parse_algorithm_choice("nccl:default");
  files = emit(own_choice, "nccl-env");
  ASSERT_TRUE(files);
  EXPECT_EQ(files->size(), 1u);
  const std::string own = file(*files, "nccl.env");
  EXPECT_EQ(own.find("NCCL_TUNER_PLUGIN="), std::string::npos) << own;
  EXPECT_NE(own.find("Nothing set: NCCL's own choice is predicted best"), std::string::npos) << own;
  EXPECT_NE(own.find("NCCL keeps its own channel count"), std::string::npos);
}

TEST(Emitters, NonRunnableAlgorithmsAreNeverEmittedAsIs) {
  auto plan = make_plan(inputs(4));
  ASSERT_TRUE(plan);
  // A topotune plan recommending a parameter server: the NCCL/DDP files must keep their
  // defaults and say why; SageMaker launches DDP (torch_distributed) with EFA's variables.
  Plan ps = *plan;
  ps.inputs.framework = Framework::Topotune;
  ps.report.recommendation.algo = {AlgoKind::ParameterServer, AlgoKind::Ring, 2};
  auto files = emit(ps, "all");
  ASSERT_TRUE(files);
  const std::string env = file(*files, "nccl.env");
  EXPECT_NE(env.find("Nothing set: the plan is for topotune"), std::string::npos) << env;
  EXPECT_EQ(env.find("NCCL_ALGO="), std::string::npos);
  const std::string ddp = file(*files, "ddp_snippet.py");
  EXPECT_EQ(ddp.find("bucket_cap_mb"), std::string::npos);
  EXPECT_NE(ddp.find("local_rank = int(os.environ[\"LOCAL_RANK\"])"), std::string::npos);
  const std::string sm = file(*files, "sagemaker_distribution.py");
  EXPECT_NE(sm.find("\"torch_distributed\": {\"enabled\": True}"), std::string::npos) << sm;
  EXPECT_NE(sm.find("\"FI_PROVIDER\": \"efa\""), std::string::npos);
  EXPECT_NE(sm.find("\"FI_EFA_USE_DEVICE_RDMA\": \"1\""), std::string::npos);
  EXPECT_NE(file(*files, "torchrun.sh").find("export FI_EFA_USE_DEVICE_RDMA=1"), std::string::npos);
  // SMDDP on its instances: its own distribution.
  ps.inputs.framework = Framework::Smddp;
  files = emit(ps, "sagemaker");
  ASSERT_TRUE(files);
  EXPECT_NE((*files)[0].content.find("smdistributed"), std::string::npos);
}

}  // namespace
}  // namespace topotune::tune

namespace topotune::tune {
namespace {

class ConstTimer final : public CollectiveTimer {
 public:
  std::string name() const override { return "const"; }
  Expected<Seconds> allreduce(const AlgorithmChoice&, Bytes) const override { return Seconds(1.0); }
};

TEST(SimulatorTimer, SamplesInterpolatesAndDelegatesNcclAlgorithms) {
  const ConstTimer nccl;
  auto timer = SimulatorTimer::create(p4d(2), nccl, 64_MiB);
  ASSERT_TRUE(timer) << timer.error().message;
  const SimulatorTimer& t = **timer;
  // NCCL's own algorithms are not simulated.
  EXPECT_DOUBLE_EQ(t.allreduce({AlgoKind::NcclRing}, 8_MiB)->value, 1.0);
  EXPECT_DOUBLE_EQ(t.allreduce({AlgoKind::NcclDefault}, 8_MiB)->value, 1.0);
  EXPECT_EQ(t.simulations(), 0);
  // Samples at 1, 8 and 64 MiB: one simulation each, then only interpolation.
  const AlgorithmChoice h{AlgoKind::Hierarchical, AlgoKind::Ring};
  const double t1 = t.allreduce(h, 1_MiB)->value;
  const double t8 = t.allreduce(h, 8_MiB)->value;
  EXPECT_EQ(t.simulations(), 3);
  EXPECT_GT(t8, t1);
  const double mid = t.allreduce(h, Bytes((1_MiB + 8_MiB).value / 2))->value;
  EXPECT_NEAR(mid, (t1 + t8) / 2, 1e-12);
  EXPECT_EQ(t.simulations(), 3);
}

// The work estimate that gates the rank stage is within 2x of the generated schedules.
TEST(SimulatorTimer, TransferEstimateMatchesGeneratedSchedules) {
  for (int hosts : {2, 4, 16}) {
    auto t = topo::build_topology(p4d(hosts));
    ASSERT_TRUE(t);
    for (const char* name :
         {"ring", "dbtree", "rhd", "ps(k=2)", "hierarchical(ring)", "hierarchical(tree)",
          "hierarchical(rhd)", "hierarchical(ps(k=2))", "hierarchical(rhd)/ch2"}) {
      const AlgorithmChoice a = *parse_algorithm_choice(name);
      auto alg = make_schedule_algorithm(a);
      ASSERT_TRUE(alg);
      auto layout = algo::layout_from_topology(*t, std::max(1, a.channels));
      ASSERT_TRUE(layout);
      sched::CollectiveSpec spec;
      spec.ranks = layout->ranks();
      spec.bytes = 1_MiB;
      auto s = (*alg)->generate(spec, *layout);
      ASSERT_TRUE(s) << name << ": " << s.error().message;
      const double est = static_cast<double>(estimated_transfers(a, hosts, 8));
      const double got = static_cast<double>(s->size());
      EXPECT_LE(est, 2 * got) << name << " on " << hosts << " hosts";
      EXPECT_GE(est, got / 2) << name << " on " << hosts << " hosts";
    }
  }
}

TEST(SimulatorTimer, BudgetRefusesBigSchedulesAndSaysSo) {
  const ConstTimer nccl;
  SimBudget budget;
  // 4 hosts x 8 GPUs: intra rings 2 x 7 x 32 = 448, plus 8 rails of the inner algorithm over
  // 4 hosts: tree 4 x 4 (576 in all), ring 2 x 3 x 4 (640), rhd 2 x 4 x 2 + 2 x 4 (640).
  budget.max_transfers = 1000;
  budget.max_total = 2000;
  auto timer = SimulatorTimer::create(p4d(4), nccl, 64_MiB, budget);
  ASSERT_TRUE(timer) << timer.error().message;
  const SimulatorTimer& t = **timer;
  // 4 channels x 640 = 2560 estimated transfers: above the per-schedule limit.
  auto big = t.allreduce(*parse_algorithm_choice("hierarchical(rhd)/ch4"), 8_MiB);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().code, Errc::Unsupported);
  // 3 samples (1, 8, 64 MiB) of ~576 transfers fit the total once, not twice.
  EXPECT_TRUE(t.allreduce(*parse_algorithm_choice("hierarchical(dbtree)"), 8_MiB));
  auto spent = t.allreduce(*parse_algorithm_choice("hierarchical(ring)"), 8_MiB);
  ASSERT_FALSE(spent);
  EXPECT_NE(spent.error().message.find("budget"), std::string::npos);
  const std::vector<std::string> summary = t.summary();
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(summary[0],
            "rank stage simulated hierarchical(dbtree) (3 sizes) on the full 4-node fabric (one "
            "switch)");
}

// The budget counts the simulator's work: hierarchical(ring) on one switch is simulated one
// flow per 4 twins (simulator/symmetry.h), so its 640 transfers count as 160; the tree, which
// has no such symmetry, counts in full.
TEST(SimulatorTimer, BudgetCountsSymmetryReducedTransfers) {
  const ConstTimer nccl;
  SimBudget budget;
  budget.max_transfers = 200;
  auto timer = SimulatorTimer::create(p4d(4), nccl, 64_MiB, budget);
  ASSERT_TRUE(timer) << timer.error().message;
  const SimulatorTimer& t = **timer;
  EXPECT_TRUE(t.allreduce(*parse_algorithm_choice("hierarchical(ring)"), 8_MiB));
  EXPECT_EQ(t.transfers_simulated(), 3 * 640 / 4);
  EXPECT_FALSE(t.allreduce(*parse_algorithm_choice("hierarchical(dbtree)"), 8_MiB));
  ASSERT_EQ(t.summary().size(), 1u);
  EXPECT_NE(t.summary()[0].find("one flow per 4 twins"), std::string::npos) << t.summary()[0];
}

}  // namespace
}  // namespace topotune::tune

namespace topotune::tune {
namespace {

TEST(NcclTimer, NcclAlgorithmsComeFromThePredictorOthersAreDelegated) {
  const ConstTimer other;
  auto system = algo::nccl_system_from_cluster(p4d(4));
  ASSERT_TRUE(system);
  const NcclTimer timer(*system, algo::default_params(), other);
  const algo::NcclPredictor any(*system, algo::default_params(), {});
  EXPECT_DOUBLE_EQ(timer.allreduce({AlgoKind::NcclDefault}, 64_MiB)->value,
                   any.predict(sched::Collective::Allreduce, 64_MiB)->chosen.time.value);
  EXPECT_GE(timer.allreduce({AlgoKind::NcclRing}, 64_MiB)->value,
            timer.allreduce({AlgoKind::NcclDefault}, 64_MiB)->value);  // restricted: never faster
  EXPECT_DOUBLE_EQ(timer.allreduce({AlgoKind::HalvingDoubling}, 64_MiB)->value, 1.0);
  auto ring = timer.chosen({AlgoKind::NcclRing}, 64_MiB);
  ASSERT_TRUE(ring);
  EXPECT_EQ(ring->algo, algo::NcclAlgo::Ring);
  EXPECT_FALSE(timer.chosen({AlgoKind::HalvingDoubling}, 64_MiB));
  // A channel count is NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS: the predictor with those bounds.
  // One channel drives one engine, slower than the NICs the default channels fill.
  algo::NcclOptions one;
  one.algos = {algo::NcclAlgo::Ring};
  one.min_channels = one.max_channels = 1;
  const algo::NcclPredictor ring1(*system, algo::default_params(), one);
  AlgorithmChoice r1{AlgoKind::NcclRing};
  r1.channels = 1;
  EXPECT_EQ(timer.chosen(r1, 64_MiB)->channels, 1);
  EXPECT_DOUBLE_EQ(timer.allreduce(r1, 64_MiB)->value,
                   ring1.predict(sched::Collective::Allreduce, 64_MiB)->chosen.time.value);
  EXPECT_GT(timer.allreduce(r1, 64_MiB)->value,
            timer.allreduce({AlgoKind::NcclRing}, 64_MiB)->value);
}

TEST(Plan, CalibrationIsAppliedAndReplayed) {
  PlanInputs in = inputs(4);
  auto plain = make_plan(in);
  ASSERT_TRUE(plain) << plain.error().message;
  // Halve the EFA (SRD, p4d's EFA v1) efficiency: NCCL's allreduce must get slower.
  ASSERT_TRUE(set_plan_calibration(in,
                                   R"({"schema":"topotune.nccl_model/2","parameters":{)"
                                   R"("net_efficiency.efa_srd":{"value":0.3,"source":"test"}}})"));
  auto slow = make_plan(in);
  ASSERT_TRUE(slow) << slow.error().message;
  EXPECT_GT(slow->report.baseline_ddp.allreduce_all, plain->report.baseline_ddp.allreduce_all);
  const std::string text = plan_to_json(*slow);
  auto stored = read_plan_json(text, "plan.json");
  ASSERT_TRUE(stored) << stored.error().message;
  auto again = make_plan(stored->inputs);
  ASSERT_TRUE(again);
  EXPECT_EQ(plan_to_json(*again), text);
}

}  // namespace
}  // namespace topotune::tune

namespace topotune::tune {
namespace {

TEST(PlanInputs, TypedChoicesAndWhatThePlanReadsOffTheCluster) {
  EXPECT_EQ(parse_plan_backend("mpi").value(), PlanBackend::Mpi);
  EXPECT_EQ(parse_plan_backend(plan_backend_name(PlanBackend::Nccl)).value(), PlanBackend::Nccl);
  const auto bad = parse_plan_backend("gloo");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "unknown backend 'gloo' (nccl, mpi)");
  PlanInputs in = inputs(4);
  EXPECT_EQ(in.cluster.hosts, 4);  // typed: what the record holds, read back
  auto plan = make_plan(in);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->cluster.instance, "p4d.24xlarge");
  EXPECT_EQ(plan->cluster.nodes, 4);
  EXPECT_EQ(plan->cluster.placement, "cluster");
  EXPECT_EQ(plan->cluster.shape.ranks(), 32);
  // The inputs as used: the GPU's dtypes and peak filled in (A100: bf16 native, 312 TFLOP/s).
  EXPECT_TRUE(in.dtypes.empty());
  EXPECT_EQ(plan->inputs.dtypes,
            (std::vector<sched::DataType>{sched::DataType::F32, sched::DataType::BF16}));
  EXPECT_DOUBLE_EQ(plan->inputs.compute.peak_flops, 312e12);
}

TEST(PlanInputs, ACalibrationSetsTheNcclParametersAndIsRecorded) {
  PlanInputs in = inputs(2);
  const std::string text = R"({"schema":"topotune.nccl_model/2","parameters":{)"
                           R"("nvlink_efficiency":{"value":0.5,"source":"test"}}})";
  ASSERT_TRUE(set_plan_calibration(in, text, "cal.json"));
  EXPECT_EQ(in.nccl_params.nvlink_efficiency, 0.5);
  EXPECT_EQ(in.calibration_record, text);
  const auto bad =
      set_plan_calibration(in, R"({"schema":"topotune.nccl_model/2","x":1})", "bad.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("bad.json"), std::string::npos) << bad.error().message;
}

TEST(Plan, AReplayThatRecommendsDifferentlySaysSo) {
  auto plan = make_plan(inputs(4));
  ASSERT_TRUE(plan) << plan.error().message;
  auto stored = read_plan_json(plan_to_json(*plan), "plan.json");
  ASSERT_TRUE(stored) << stored.error().message;
  auto same = replay_plan(*stored);
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_FALSE(same->replay_note);
  stored->bucket_bytes += 1;  // as if an older version had recommended another bucket size
  stored->version = "0.0.1";
  auto other = replay_plan(*stored);
  ASSERT_TRUE(other) << other.error().message;
  ASSERT_TRUE(other->replay_note);
  EXPECT_NE(other->replay_note->find("recommends differently from the stored plan (topotune "
                                     "0.0.1"),
            std::string::npos)
      << *other->replay_note;
}

}  // namespace
}  // namespace topotune::tune

namespace topotune::tune {
namespace {

// On p4d x 4 at 32 MiB, NCCL_ALGO=Ring beats the latest release's own choice but loses to
// 2.18.5's (predict: ring 2112 us; tree 2766 us latest, 1990 us 2.18.5): the plan's timer follows
// the release it is given, the plan records it so that a replay keeps it, and the emitted
// files say which release they assume.
TEST(PlanInputs, TheNcclReleaseChangesNcclsChoiceAndIsRecorded) {
  PlanInputs in = inputs(4);
  const algo::NcclVersion v2185 = *algo::parse_nccl_version("2.18.5");
  const AlgorithmChoice nccl_default = *parse_algorithm_choice("nccl:default");
  const AlgorithmChoice nccl_ring = *parse_algorithm_choice("nccl:ring");
  const Bytes size(32 << 20);
  auto latest = ModelTimers::create(in.cluster, in.nccl_params, true);
  auto old = ModelTimers::create(in.cluster, in.nccl_params, true, v2185);
  ASSERT_TRUE(latest && old);
  // The latest release's own choice (tree, 2766 us) loses to NCCL_ALGO=Ring (2112 us) ...
  const NcclTimer& now = (*latest)->screen();
  EXPECT_LT(now.allreduce(nccl_ring, size)->value, now.allreduce(nccl_default, size)->value);
  // ... where 2.18.5's own choice (tree, 1990 us) beats it.
  const NcclTimer& then = (*old)->screen();
  EXPECT_EQ(then.chosen(nccl_default, size)->algo, algo::NcclAlgo::Tree);
  EXPECT_LT(then.allreduce(nccl_default, size)->value, then.allreduce(nccl_ring, size)->value);
  in.nccl_version = v2185;
  auto plan = make_plan(in);
  ASSERT_TRUE(plan) << plan.error().message;
  const std::string text = plan_to_json(*plan);
  EXPECT_NE(text.find("\"nccl_version\": \"2.18.5\""), std::string::npos);
  auto stored = read_plan_json(text, "plan.json");
  ASSERT_TRUE(stored) << stored.error().message;
  EXPECT_EQ(stored->inputs.nccl_version.str(), "2.18.5");
  const std::string env = file(*emit(*plan, "nccl-env"), "nccl.env");
  EXPECT_NE(env.find("# Assumes NCCL 2.18.5."), std::string::npos) << env;
  const std::string current = file(*emit(*make_plan(inputs(4)), "nccl-env"), "nccl.env");
  EXPECT_NE(current.find("# Assumes NCCL 2.30.7 (the latest modeled release); plan --nccl-version"),
            std::string::npos)
      << current;
}

}  // namespace
}  // namespace topotune::tune

namespace topotune::tune {
namespace {

// p4d x 4, BERT-large batch 32: every change the recommendation makes to DDP's defaults is
// timed alone, as the search times it (same timer, step model and SM charge): each alone row
// differs from the defaults in that one field, and the alone rows are what the table and the
// JSON report.
TEST(GainAttribution, EachChangeIsTimedAloneAgainstTheDefaults) {
  PlanInputs in = inputs(4);
  in.compute.batch_per_gpu = 32;
  auto plan = make_plan(in);
  ASSERT_TRUE(plan) << plan.error().message;
  const Candidate& rec = plan->report.recommendation;
  const Candidate& defaults = plan->report.baseline_ddp;
  ASSERT_EQ(rec.framework, Framework::Ddp);
  ASSERT_FALSE(plan->keeps_defaults);
  std::vector<std::string> expected;
  if (rec.bucket_cap != defaults.bucket_cap) {
    expected.push_back(string_printf("%g MiB buckets", rec.bucket_cap.as_double() / (1 << 20)));
  } else if (rec.first_bucket != defaults.first_bucket) {
    expected.push_back(
        string_printf("first bucket %g MiB", rec.first_bucket.as_double() / (1 << 20)));
  }
  if (rec.dtype != defaults.dtype) {
    expected.push_back(std::string(sched::dtype_name(rec.dtype)) + " gradients");
  }
  AlgorithmChoice algo = rec.algo;
  algo.channels = 0;
  if (!(algo == defaults.algo)) expected.push_back(algo.name());
  std::vector<std::string> changes;
  for (const GainStep& g : plan->attribution) changes.push_back(g.change);
  EXPECT_EQ(changes, expected);
  ASSERT_GE(changes.size(), 2u);
  for (const GainStep& g : plan->attribution) {
    const Candidate& c = g.alone;
    const int differs =
        (c.bucket_cap != defaults.bucket_cap || c.first_bucket != defaults.first_bucket) +
        (c.dtype != defaults.dtype) + !(c.algo == defaults.algo);
    EXPECT_EQ(differs, 1) << g.change;
    EXPECT_GT(c.step.step.value, 0) << g.change;
    // Timed as the search times it: the same SM charge as the defaults' row.
    EXPECT_EQ(c.channels_charged, defaults.channels_charged) << g.change;
  }
  const std::string json = plan_to_json(*plan);
  EXPECT_NE(json.find("\"each_change_alone\""), std::string::npos);
  EXPECT_NE(json.find("\"change\": \"" + changes.back() + "\""), std::string::npos);
}

// NCCL's algorithms only (--algos nccl:default,nccl:ring,nccl:tree): the recommendation changes
// the bucket cap, and ddp_snippet.py credits the bucket with its own step (GainKnob::Buckets),
// not with the whole plan's.
TEST(GainAttribution, TheDdpSnippetCreditsTheBucketWithWhatItBuysAlone) {
  PlanInputs in = inputs(4);
  in.compute.batch_per_gpu = 32;
  in.algorithm_kinds = {AlgoKind::NcclDefault, AlgoKind::NcclRing, AlgoKind::NcclTree};
  auto plan = make_plan(in);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_NE(plan->report.recommendation.bucket_cap, plan->report.baseline_ddp.bucket_cap);
  const GainStep* bucket = nullptr;
  for (const GainStep& g : plan->attribution) {
    if (g.knob == GainKnob::Buckets) bucket = &g;
  }
  ASSERT_NE(bucket, nullptr);
  const std::string ddp = file(*emit(*plan, "ddp"), "ddp_snippet.py");
  const std::string alone = string_printf("%.3g ms", bucket->alone.step.step.value * 1e3);
  EXPECT_NE(ddp.find(bucket->change + " alone: predicted step " + alone), std::string::npos) << ddp;
}

}  // namespace
}  // namespace topotune::tune

namespace topotune::tune {
namespace {

// p4d with its bf16 peak made unknown and two published figures in its place.
PlanInputs unknown_peak(int hosts, double low_tflops, double high_tflops) {
  PlanInputs in = inputs(hosts);
  in.cluster.instance.gpu.peak_fp16_flops = 0;
  in.cluster.instance.gpu.peak_fp16_published =
      topo::PublishedRange{low_tflops * 1e12, high_tflops * 1e12};
  return in;
}

TEST(PeakBracket, TheSameAdviceAtBothEndsIsGivenWithItsTimesAtOneEnd) {
  const auto plan = make_plan(unknown_peak(4, 312, 315));
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_TRUE(plan->peak_bracket);
  const PeakBracket& b = *plan->peak_bracket;
  EXPECT_DOUBLE_EQ(b.range.low, 312e12);
  EXPECT_DOUBLE_EQ(b.range.high, 315e12);
  EXPECT_TRUE(b.used_flops == b.range.low || b.used_flops == b.range.high);
  EXPECT_DOUBLE_EQ(b.other_flops, b.used_flops == b.range.low ? b.range.high : b.range.low);
  // The times are those of a plan given the used end as its rate, the other end's likewise.
  EXPECT_DOUBLE_EQ(plan->inputs.compute.peak_flops, b.used_flops);
  for (const double end : {b.used_flops, b.other_flops}) {
    PlanInputs given = unknown_peak(4, 312, 315);
    given.compute.peak_flops = end;
    const auto at_end = make_plan(given);
    ASSERT_TRUE(at_end) << at_end.error().message;
    EXPECT_FALSE(at_end->peak_bracket);  // a given rate brackets nothing
    EXPECT_TRUE(same_configuration(at_end->report.recommendation, plan->report.recommendation));
    const double step = at_end->report.recommendation.step.step.value;
    EXPECT_DOUBLE_EQ(step, end == b.used_flops ? plan->report.recommendation.step.step.value
                                               : b.other_step.value);
  }
  bool noted = false;
  for (const std::string& n : plan->report.notes) {
    noted = noted || n.find("published figures disagree (312 to 315 TFLOP/s)") != n.npos;
  }
  EXPECT_TRUE(noted);
  const auto j = nlohmann::json::parse(plan_to_json(*plan));
  EXPECT_EQ(j["peak_bracket"]["low_tflops"], 312);
  EXPECT_EQ(j["peak_bracket"]["high_tflops"], 315);
}

TEST(PeakBracket, AdviceThatDependsOnThePeakIsRefusedNamingBothEnds) {
  // At 10 TFLOP/s compute hides the allreduces (DDP's defaults stay); at 100,000 nothing hides
  // them and bigger buckets or bf16 pay.
  const auto low = [] {
    PlanInputs in = unknown_peak(4, 10, 100000);
    in.compute.peak_flops = 10e12;
    return make_plan(in);
  }();
  const auto high = [] {
    PlanInputs in = unknown_peak(4, 10, 100000);
    in.compute.peak_flops = 100000e12;
    return make_plan(in);
  }();
  ASSERT_TRUE(low && high);
  ASSERT_FALSE(same_configuration(low->report.recommendation, high->report.recommendation));
  const auto plan = make_plan(unknown_peak(4, 10, 100000));
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, Errc::InvalidArgument);
  const std::string& m = plan.error().message;
  EXPECT_NE(m.find("published figures disagree: 10 to 100000 TFLOP/s"), m.npos) << m;
  EXPECT_NE(m.find("at 10, " + recommendation_sentence(*low)), m.npos) << m;
  EXPECT_NE(m.find("At 100000, " + recommendation_sentence(*high)), m.npos) << m;
  EXPECT_NE(m.find("--peak-tflops"), m.npos);
}

TEST(PeakBracket, OnlyAnUnknownTensorPeakTimedFromFlopsIsBracketed) {
  const PlanInputs in = unknown_peak(2, 312, 315);
  const topo::GpuSpec& gpu = in.cluster.instance.gpu;
  EXPECT_TRUE(peak_to_bracket(in.compute, in.model, gpu));
  ComputeParams given = in.compute;
  given.peak_flops = 300e12;
  EXPECT_FALSE(peak_to_bracket(given, in.model, gpu));
  ComputeParams fp32 = in.compute;
  fp32.precision = TrainingPrecision::Fp32;  // its own peak, known
  EXPECT_FALSE(peak_to_bracket(fp32, in.model, gpu));
  topo::GpuSpec known = gpu;
  known.peak_fp16_flops = 312e12;
  EXPECT_FALSE(peak_to_bracket(in.compute, in.model, known));
  topo::GpuSpec unpublished = gpu;
  unpublished.peak_fp16_published.reset();
  EXPECT_FALSE(peak_to_bracket(in.compute, in.model, unpublished));
}

TEST(PlanMemory, PublishedFiguresThatDisagreeAreCheckedAtTheSmallest) {
  PlanInputs in = inputs(2);
  in.cluster.instance.gpu.memory = Bytes(0);
  in.cluster.instance.gpu.memory_published = topo::PublishedRange{1.0 * (1 << 30), 100e9};
  const auto plan = make_plan(in);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->memory.known);
  EXPECT_EQ(plan->memory.gpu_memory.value, std::int64_t{1} << 30);
  EXPECT_FALSE(plan->memory.fits);  // BERT-large's 5 GiB of model states
  EXPECT_EQ(recommendation_sentence(*plan).rfind("Warning: this model does not fit", 0), 0u);
  bool noted = false;
  for (const std::string& n : plan->report.notes) {
    noted = noted || n.find("published figures disagree (1 to 93 GiB)") != n.npos;
  }
  EXPECT_TRUE(noted);
  in.cluster.instance.gpu.memory_published.reset();  // nothing published: nothing checked
  const auto unknown = make_plan(in);
  ASSERT_TRUE(unknown);
  EXPECT_FALSE(unknown->memory.known);
}

}  // namespace
}  // namespace topotune::tune
