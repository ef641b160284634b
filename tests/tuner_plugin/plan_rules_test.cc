// The rules file made from a plan (planning/nccl_tuner_rules.h) read back by the plugin's own
// parser: every line parses, and at each of the plan's bucket sizes the plugin finds the rule
// with the plan's predicted algorithm and protocol, on p4d, p5 and DGX H100 clusters. And what
// `plan --emit` writes: the rules file and the variables that load the plugin, never a global
// NCCL_ALGO / NCCL_PROTO / NCCL_*NCHANNELS; rules for the DDP hook's communicators; nothing
// for a plan that keeps NCCL's choices.

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "algorithms/schedule/collective_spec.h"
#include "planning/emitters.h"
#include "planning/model_profile.h"
#include "planning/nccl_tuner_rules.h"
#include "planning/plan.h"
#include "topology/cluster_spec.h"
#include "tuner_plugin/rules.h"

namespace topotune::tune {
namespace {

namespace tp = tuner_plugin;

std::string folded(std::string s) {
  std::string out;
  for (char c : s) {
    if (c != '_' && c != '-') out.push_back(static_cast<char>(std::tolower(c)));
  }
  return out;
}

Plan plan_for(const char* instance, int nodes, int batch = 8, std::vector<AlgoKind> algos = {}) {
  PlanInputs in;
  auto spec = topo::make_cluster_spec(instance, nodes);
  EXPECT_TRUE(spec) << instance;
  EXPECT_TRUE(set_plan_cluster(in, *spec, std::string("\"") + instance + "\""));
  in.model = *load_model_profile("bert-large");
  in.compute.batch_per_gpu = batch;
  in.algorithm_kinds = std::move(algos);
  auto plan = make_plan(in);
  EXPECT_TRUE(plan) << plan.error().message;
  return *plan;
}

void check_round_trip(const Plan& plan, int channels) {
  const tp::RulesParse parsed = tp::parse_rules(nccl_tuner_rules_file(plan, channels));
  ASSERT_EQ(parsed.error, "");
  ASSERT_FALSE(plan.nccl_rules.empty());
  ASSERT_EQ(parsed.rules.size(), plan.nccl_rules.size());
  const int nodes = plan.cluster.nodes;
  const int ranks = nodes * plan.cluster.shape.gpus_per_host;
  for (const NcclBucketRule& want : plan.nccl_rules) {
    for (std::int64_t bytes : {want.min_bytes, want.max_bytes}) {
      const tp::Rule* got = tp::find_rule(parsed.rules, 4 /*ncclFuncAllReduce*/,
                                          static_cast<std::uint64_t>(bytes), nodes, ranks);
      ASSERT_NE(got, nullptr) << bytes;
      EXPECT_EQ(folded(tp::algo_name(got->algo)), folded(want.algo)) << bytes;
      EXPECT_EQ(tp::proto_name(got->proto), want.proto) << bytes;
      EXPECT_EQ(got->channels, channels) << bytes;
    }
    // Another communicator shape (a node-local group) keeps NCCL's own choice.
    EXPECT_EQ(tp::find_rule(parsed.rules, 4, static_cast<std::uint64_t>(want.min_bytes), 1,
                            plan.cluster.shape.gpus_per_host),
              nullptr);
  }
  // Other collectives keep NCCL's own choice.
  EXPECT_EQ(
      tp::find_rule(parsed.rules, 2 /*ncclFuncAllGather*/,
                    static_cast<std::uint64_t>(plan.nccl_rules.front().min_bytes), nodes, ranks),
      nullptr);
}

TEST(PlanTunerRules, ReadBackByThePluginsParser) {
  for (const char* instance : {"p4d.24xlarge", "p5.48xlarge", "dgx-h100"}) {
    SCOPED_TRACE(instance);
    const Plan plan = plan_for(instance, 4);
    check_round_trip(plan, 0);   // NCCL's own channel count: no channels field
    check_round_trip(plan, 16);  // the plan overrides it
  }
}

constexpr int kAllGather = 2;      // ncclFuncAllGather
constexpr int kReduceScatter = 3;  // ncclFuncReduceScatter
constexpr int kAllReduce = 4;      // ncclFuncAllReduce

const EmittedFile* find_file(const std::vector<EmittedFile>& files, const std::string& name) {
  for (const EmittedFile& f : files) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// No line outside a comment names a variable that changes every collective of every size
// (nccl.env's KEY=VALUE, torchrun.sh's export, SageMaker's "KEY": value, horovod.env).
void expect_no_global_nccl_settings(const std::vector<EmittedFile>& files) {
  for (const EmittedFile& f : files) {
    std::istringstream in(f.content);
    std::string line;
    while (std::getline(in, line)) {
      const std::size_t first = line.find_first_not_of(" \t");
      if (first == std::string::npos || line[first] == '#') continue;
      for (const char* name : {"NCCL_ALGO", "NCCL_PROTO", "NCHANNELS"}) {
        EXPECT_EQ(line.find(name), std::string::npos) << f.name << ": " << line;
      }
    }
  }
}

// --algos nccl:ring,nccl:tree,nccl:default on p4d x 4 (batch 32, the CLI's): NCCL's Ring wins,
// and it reaches NCCL only through the rules, for the allreduce sizes the plan timed.
TEST(PlanEmitTunerRules, NcclRingPickIsCarriedByRulesNotByNcclAlgo) {
  const Plan plan = plan_for("p4d.24xlarge", 4, 32,
                             {AlgoKind::NcclRing, AlgoKind::NcclTree, AlgoKind::NcclDefault});
  const Candidate& rec = plan.report.recommendation;
  ASSERT_FALSE(plan.keeps_defaults);
  ASSERT_EQ(rec.algo.kind, AlgoKind::NcclRing) << rec.algo.name();
  auto files = emit(plan, "all");
  ASSERT_TRUE(files) << files.error().message;
  expect_no_global_nccl_settings(*files);
  const EmittedFile* env = find_file(*files, "nccl.env");
  ASSERT_NE(env, nullptr);
  EXPECT_NE(env->content.find("\nNCCL_TUNER_PLUGIN=topotune\n"), std::string::npos);
  EXPECT_NE(env->content.find("\nNCCL_TUNER_TOPOTUNE_RULES=nccl_tuner_rules.txt\n"),
            std::string::npos);
  const EmittedFile* rules = find_file(*files, kTunerRulesFile);
  ASSERT_NE(rules, nullptr);
  const tp::RulesParse parsed = tp::parse_rules(rules->content);
  ASSERT_EQ(parsed.error, "");
  const int nodes = plan.cluster.nodes;
  const int ranks = nodes * plan.cluster.shape.gpus_per_host;
  ASSERT_FALSE(rec.step.buckets.empty());
  for (const sim::BucketEvent& b : rec.step.buckets) {
    const auto bytes = static_cast<std::uint64_t>(b.bytes.value);
    const tp::Rule* got = tp::find_rule(parsed.rules, kAllReduce, bytes, nodes, ranks);
    ASSERT_NE(got, nullptr) << bytes;
    EXPECT_STREQ(tp::algo_name(got->algo), "Ring") << bytes;
    // Any allgather keeps NCCL's own choice.
    EXPECT_EQ(tp::find_rule(parsed.rules, kAllGather, bytes, nodes, ranks), nullptr);
  }
  // A 1 KiB allreduce (not a bucket size) keeps NCCL's own choice.
  EXPECT_EQ(tp::find_rule(parsed.rules, kAllReduce, 1024, nodes, ranks), nullptr);
  // torchrun.sh hands every rank the rules' absolute path.
  const EmittedFile* launch = find_file(*files, "torchrun.sh");
  ASSERT_NE(launch, nullptr);
  EXPECT_NE(launch->content.find("export NCCL_TUNER_TOPOTUNE_RULES=\"$(cd \"$(dirname \"$0\")\" && "
                                 "pwd)/nccl_tuner_rules.txt\""),
            std::string::npos)
      << launch->content;
}

// The default plan (p4d x 4, batch 32) runs hierarchical(ring) as the DDP hook. The hook
// (python/topotune/ddp_hooks.py) pads a bucket of S bytes to G shards of whole elements and
// issues reduce-scatter and all-gather on its node's group, which NCCL reports as count x
// nRanks bytes (the padded bucket), and allreduce of one shard on its rail group.
TEST(PlanEmitTunerRules, DefaultPlanRulesCoverTheDdpHooksCommunicators) {
  const Plan plan = plan_for("p4d.24xlarge", 4, 32);
  const Candidate& rec = plan.report.recommendation;
  ASSERT_EQ(rec.algo.name(), "hierarchical(ring)");
  auto files = emit(plan, "all");
  ASSERT_TRUE(files) << files.error().message;
  expect_no_global_nccl_settings(*files);
  const EmittedFile* env = find_file(*files, "nccl.env");
  ASSERT_NE(env, nullptr);
  EXPECT_NE(env->content.find("\nNCCL_TUNER_PLUGIN=topotune\n"), std::string::npos);
  const EmittedFile* rules = find_file(*files, kTunerRulesFile);
  ASSERT_NE(rules, nullptr);
  const tp::RulesParse parsed = tp::parse_rules(rules->content);
  ASSERT_EQ(parsed.error, "");
  const int h = plan.cluster.nodes;
  const int g = plan.cluster.shape.gpus_per_host;
  const std::int64_t elem = sched::dtype_size(rec.dtype);
  ASSERT_FALSE(rec.step.buckets.empty());
  for (const sim::BucketEvent& b : rec.step.buckets) {
    const std::int64_t shard_elems = (b.bytes.value / elem + g - 1) / g;
    const auto shard = static_cast<std::uint64_t>(shard_elems * elem);
    for (int coll : {kReduceScatter, kAllGather}) {
      const tp::Rule* got = tp::find_rule(parsed.rules, coll, shard * g, 1, g);
      ASSERT_NE(got, nullptr) << coll << " " << shard * g;
      EXPECT_STREQ(tp::algo_name(got->algo), "Ring");
      EXPECT_EQ(got->proto, tp::kAnyProto);
      EXPECT_EQ(got->channels, 0);
    }
    const tp::Rule* rail = tp::find_rule(parsed.rules, kAllReduce, shard, h, h);
    ASSERT_NE(rail, nullptr) << shard;
    EXPECT_STREQ(tp::algo_name(rail->algo), "Ring");
    EXPECT_EQ(rail->proto, tp::kAnyProto);
    // The world communicator is not the hook's: NCCL's own choice.
    EXPECT_EQ(tp::find_rule(parsed.rules, kAllReduce, static_cast<std::uint64_t>(b.bytes.value), h,
                            h * g),
              nullptr);
  }
  // An inner algorithm NCCL does not have (rhd) gets no rail rule, and a comment says so.
  Candidate rhd = rec;
  rhd.algo.inner = AlgoKind::HalvingDoubling;
  const std::string text = ddp_hook_tuner_rules_file(plan, rhd);
  const tp::RulesParse no_rail = tp::parse_rules(text);
  ASSERT_EQ(no_rail.error, "");
  for (const tp::Rule& r : no_rail.rules) EXPECT_NE(r.collective, kAllReduce);
  EXPECT_EQ(no_rail.rules.size(), 2u);
  EXPECT_NE(text.find("no rule, NCCL's own choice"), std::string::npos) << text;
}

// p5.48xlarge x 2 keeps DDP's and NCCL's defaults: no rules file, no plugin variables.
TEST(PlanEmitTunerRules, PlanKeepingNcclsChoicesWritesNoRules) {
  const Plan plan = plan_for("p5.48xlarge", 2, 32);
  ASSERT_TRUE(plan.keeps_defaults);
  auto files = emit(plan, "all");
  ASSERT_TRUE(files) << files.error().message;
  EXPECT_EQ(find_file(*files, kTunerRulesFile), nullptr);
  for (const EmittedFile& f : *files) {
    EXPECT_EQ(f.content.find("NCCL_TUNER_"), std::string::npos) << f.name;
  }
}

}  // namespace
}  // namespace topotune::tune
