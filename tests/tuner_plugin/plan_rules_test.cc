// The rules file made from a plan (autotune/nccl_tuner_rules.h) read back by the plugin's own
// parser: every line parses, and at each of the plan's bucket sizes the plugin finds the rule
// with the plan's predicted algorithm and protocol, on p4d, p5 and DGX H100 clusters.

#include <gtest/gtest.h>

#include <string>

#include "autotune/model_profile.h"
#include "autotune/nccl_tuner_rules.h"
#include "autotune/plan.h"
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

Plan plan_for(const char* instance, int nodes) {
  PlanInputs in;
  auto spec = topo::make_cluster_spec(instance, nodes);
  EXPECT_TRUE(spec) << instance;
  EXPECT_TRUE(set_plan_cluster(in, *spec, std::string("\"") + instance + "\""));
  in.model = *load_model_profile("bert-large");
  in.compute.batch_per_gpu = 8;
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

}  // namespace
}  // namespace topotune::tune
