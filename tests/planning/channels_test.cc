// Channels honestly (issue 26, items 5 and 8): /chN rows say they override NCCL, every row is
// charged the SMs its channels take, --algos X means X at its own channel count (X/chN asks
// for the sweep), and the emitted files' papercuts.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "planning/emitters.h"
#include "planning/plan.h"
#include "planning/plan_algorithms.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {
namespace {

PlanInputs on(const char* instance, int hosts, const char* model = "resnet50") {
  PlanInputs in;
  auto spec = topo::make_cluster_spec(instance, hosts);
  EXPECT_TRUE(spec) << instance;
  EXPECT_TRUE(set_plan_cluster(in, *spec, std::string("\"") + instance + "\""));
  in.model = *load_model_profile(model);
  in.compute.batch_per_gpu = 32;
  in.simulate = false;  // the screen alone: these tests are about labels and charges
  return in;
}

std::string file(const std::vector<EmittedFile>& files, const std::string& name) {
  for (const EmittedFile& f : files) {
    if (f.name == name) return f.content;
  }
  ADD_FAILURE() << name << " not emitted";
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PlanAlgorithms, AFamilyAloneKeepsItsOwnChannelCountChNSweeps) {
  PlanInputs in;
  ASSERT_TRUE(add_plan_algorithm(in, "nccl:default"));
  ASSERT_TRUE(add_plan_algorithm(in, "nccl:ring/chN"));
  EXPECT_EQ(in.algorithm_kinds, (std::vector<AlgoKind>{AlgoKind::NcclDefault, AlgoKind::NcclRing}));
  EXPECT_EQ(in.channel_kinds, std::vector<AlgoKind>{AlgoKind::NcclRing});
  EXPECT_FALSE(plan_sweeps_channels(in, AlgoKind::NcclDefault));
  EXPECT_EQ(plan_algorithm_entry(in, AlgoKind::NcclDefault), "nccl:default");
  EXPECT_EQ(plan_algorithm_entry(in, AlgoKind::NcclRing), "nccl:ring/chN");
  auto bad = add_plan_algorithm(in, "bogus/chN");
  ASSERT_FALSE(bad);
  EXPECT_TRUE(has(bad.error().message, "/chN")) << bad.error().message;
  PlanInputs all;  // no --algos: every family, with its channel sweep
  EXPECT_TRUE(plan_sweeps_channels(all, AlgoKind::NcclDefault));
}

// The reproducer's second half: --algos nccl:default returned nccl:default/ch64.
TEST(PlanAlgorithms, NcclDefaultMeansNcclsOwnCountAndReplaysSo) {
  PlanInputs in = on("p5.48xlarge", 8);
  ASSERT_TRUE(add_plan_algorithm(in, "nccl:default"));
  auto plan = make_plan(in);
  ASSERT_TRUE(plan) << plan.error().message;
  for (const Candidate& c : plan->report.candidates) EXPECT_EQ(c.algo.channels, 0) << c.algo.name();
  EXPECT_EQ(plan->report.channel_variants_kept + plan->report.channel_variants_pruned, 0);
  // The sweep, asked for, is searched and stored in the same spelling for --replay.
  PlanInputs sweep = on("p5.48xlarge", 8);
  ASSERT_TRUE(add_plan_algorithm(sweep, "nccl:default/chN"));
  auto swept = make_plan(sweep);
  ASSERT_TRUE(swept) << swept.error().message;
  EXPECT_GT(swept->report.channel_variants_kept + swept->report.channel_variants_pruned, 0);
  const std::string text = plan_to_json(*swept);
  EXPECT_TRUE(has(text, "\"nccl:default/chN\"")) << text.substr(0, 200);
  auto stored = read_plan_json(text, "plan.json");
  ASSERT_TRUE(stored) << stored.error().message;
  EXPECT_EQ(stored->inputs.channel_kinds, std::vector<AlgoKind>{AlgoKind::NcclDefault});
}

// p5 x 8 (the reproducer): every row is charged its channels' SMs (132 on H100 SXM), /chN rows
// are labelled overrides, and an override is recommended only beyond the model's error.
TEST(Channels, P5RowsAreChargedAndLabelled) {
  auto plan = make_plan(on("p5.48xlarge", 8));
  ASSERT_TRUE(plan) << plan.error().message;
  const TuneReport& r = plan->report;
  EXPECT_GT(r.baseline_ddp.channels_charged, 0);
  EXPECT_DOUBLE_EQ(r.baseline_ddp.backward_scale, 132.0 / (132 - r.baseline_ddp.channels_charged));
  bool any_override = false;
  double own = 1e300;
  for (const Candidate& c : r.candidates) {
    if (c.algo.channels == 0 && framework_runs(Framework::Ddp, c.algo))
      own = std::min(own, c.step.step.value);
    if (c.algo.channels == 0 || !c.algo.is_nccl()) continue;
    any_override = true;
    EXPECT_EQ(c.channels_charged, c.algo.channels) << c.algo.name();
    const std::string how = how_framework_runs(Framework::Ddp, c.algo);
    EXPECT_FALSE(has(how, "NCCL's own choice")) << how;
    EXPECT_TRUE(has(how, "via topotune's tuner rules (an override of NCCL's count)")) << how;
    EXPECT_FALSE(has(how, "NCHANNELS")) << how;  // the files set no NCCL_*NCHANNELS
  }
  EXPECT_TRUE(any_override);  // the sweep is searched by default
  const Candidate& rec = r.recommendation;
  if (rec.algo.channels > 0) {
    EXPECT_LT(rec.step.step.value, own * (1 - kChannelOverrideMargin));
    EXPECT_TRUE(has(recommendation_sentence(*plan), "unvalidated"));
  }
  const nlohmann::json j = nlohmann::json::parse(plan_to_json(*plan));
  for (const auto& c : j["candidates"]) {
    const bool chn = c["algorithm"].get<std::string>().find("/ch") != std::string::npos;
    EXPECT_EQ(c["channel_override"].is_null(), !chn) << c["algorithm"];
    EXPECT_FALSE(c["sm_charge"].is_null()) << c["algorithm"];
  }
  bool noted = false;
  for (const std::string& n : r.notes) noted = noted || has(n, "one thread block per channel");
  EXPECT_TRUE(noted);
}

// An unpublished SM count (A10G) charges nothing, and the plan says so.
TEST(Channels, UnknownSmCountSkipsTheChargeWithANote) {
  PlanInputs in = on("g5.48xlarge", 2);
  in.compute.peak_flops = 125e12;  // A10G's peak is not in the catalog either
  auto plan = make_plan(in);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->report.baseline_ddp.channels_charged, 0);
  bool noted = false;
  for (const std::string& n : plan->report.notes) noted = noted || has(n, "A10G's SM count");
  EXPECT_TRUE(noted);
}

// nccl.env never calls a channel override NCCL's own choice.
TEST(Channels, NcclEnvLabelsTheOverride) {
  auto plan = make_plan(on("p4d.24xlarge", 4));
  ASSERT_TRUE(plan) << plan.error().message;
  Plan p = *plan;
  p.keeps_defaults = false;
  p.report.recommendation = p.report.baseline_ddp;
  p.report.recommendation.algo = *parse_algorithm_choice("nccl:default/ch64");
  const auto files = emit(p, "nccl-env");
  ASSERT_TRUE(files);
  const std::string env = file(*files, "nccl.env");
  EXPECT_FALSE(has(env, "\nNCCL_MIN_NCHANNELS=")) << env;
  EXPECT_TRUE(has(env, "\nNCCL_TUNER_PLUGIN=topotune\n")) << env;
  EXPECT_TRUE(has(env, "OVERRIDE of NCCL's own channel count, unvalidated")) << env;
  // The count reaches NCCL through every rule's channels field.
  const std::string rules = file(*files, "nccl_tuner_rules.txt");
  ASSERT_FALSE(p.nccl_rules.empty());
  std::size_t lines = 0;
  for (std::size_t at = rules.find("\nallreduce "); at != std::string::npos;
       at = rules.find("\nallreduce ", at + 1)) {
    ++lines;
    EXPECT_EQ(rules.substr(rules.find('\n', at + 1) - 3, 3), " 64") << rules;
  }
  EXPECT_EQ(lines, p.nccl_rules.size()) << rules;
  // The sentence in the header says how the row runs: an override, not NCCL's choice.
  EXPECT_TRUE(has(env,
                  "nccl:default/ch64 (ddp: NCCL's own algorithm, 64 channels via topotune's "
                  "tuner rules (an override of NCCL's count))"))
      << env;
  EXPECT_FALSE(has(env, "NCCL_MIN_NCHANNELS")) << env;
  EXPECT_FALSE(has(env, "(ddp: NCCL's own choice)")) << env;
}

// The words say what the emitted files do: tuner rules for DDP, nothing pinned by Horovod's
// files, never the NCCL_ALGO / NCCL_*NCHANNELS variables the files no longer set.
TEST(Channels, HowAFrameworkRunsAPickIsWhatTheFilesDo) {
  EXPECT_EQ(how_framework_runs(Framework::Ddp, *parse_algorithm_choice("nccl:ring")),
            "NCCL runs Ring via topotune's tuner rules");
  EXPECT_EQ(how_framework_runs(Framework::Ddp, *parse_algorithm_choice("nccl:tree/ch8")),
            "NCCL runs Tree, 8 channels via topotune's tuner rules (an override of NCCL's "
            "count)");
  const std::string hvd =
      how_framework_runs(Framework::Horovod, *parse_algorithm_choice("nccl:ring"));
  EXPECT_TRUE(has(hvd, "not pinned by horovod.env")) << hvd;
  for (const char* name : {"nccl:ring", "nccl:tree", "nccl:default/ch4", "nccl:ring/ch2"}) {
    for (Framework f : {Framework::Ddp, Framework::Horovod}) {
      const std::string how = how_framework_runs(f, *parse_algorithm_choice(name));
      EXPECT_FALSE(has(how, "NCCL_ALGO")) << how;
      EXPECT_FALSE(has(how, "NCHANNELS")) << how;
    }
  }
}

// Papercut: SageMaker's environment carries Horovod's knobs on a Horovod plan.
TEST(Papercuts, SageMakerEnvironmentHasHorovodsKnobs) {
  auto plan = make_plan(on("p4d.24xlarge", 4));
  ASSERT_TRUE(plan) << plan.error().message;
  Plan p = *plan;
  p.inputs.framework = Framework::Horovod;
  p.keeps_defaults = false;
  p.report.recommendation = p.report.horovod_best;
  const std::string sm = file(*emit(p, "sagemaker"), "sagemaker_distribution.py");
  const std::string threshold = std::to_string(p.report.horovod_best.bucket_cap.value);
  EXPECT_TRUE(has(sm, "\"HOROVOD_FUSION_THRESHOLD\": \"" + threshold + "\"")) << sm;
  EXPECT_TRUE(has(sm, "\"HOROVOD_CYCLE_TIME\": ")) << sm;
  // A DDP plan sets none of them.
  const std::string ddp = file(*emit(*plan, "sagemaker"), "sagemaker_distribution.py");
  EXPECT_FALSE(has(ddp, "HOROVOD_")) << ddp;
}

// Papercut: where the plan uses topotune's DDP hook, the files say to ship python/topotune.
TEST(Papercuts, TheHookSaysToShipPythonTopotune) {
  auto plan = make_plan(on("p4d.24xlarge", 4));
  ASSERT_TRUE(plan) << plan.error().message;
  Plan p = *plan;
  p.keeps_defaults = false;
  p.inputs.framework = Framework::Ddp;
  p.report.recommendation.framework = Framework::Ddp;
  p.report.recommendation.algo = *parse_algorithm_choice("hierarchical(ring)");
  ASSERT_TRUE(framework_runs(Framework::Ddp, p.report.recommendation.algo));
  auto files = emit(p, "all");
  ASSERT_TRUE(files);
  EXPECT_TRUE(has(file(*files, "ddp_snippet.py"), "Ship python/topotune with the job"));
  const std::string sh = file(*files, "torchrun.sh");
  EXPECT_TRUE(has(sh, "Ship python/topotune with the job")) << sh;
  EXPECT_TRUE(has(sh, "${TOPOTUNE_PYTHON:?")) << sh;
  // Without the hook (the defaults kept), neither says it.
  Plan kept = *plan;
  kept.keeps_defaults = true;
  auto plain = emit(kept, "all");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(has(file(*plain, "torchrun.sh"), "TOPOTUNE_PYTHON"));
}

}  // namespace
}  // namespace topotune::tune
