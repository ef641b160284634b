// --keep: the search leaves the gradient dtype or NCCL's settings alone, the plan records it
// and a replay keeps it.

#include "planning/plan_keep.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "planning/emitters.h"
#include "planning/emitters_nccl.h"
#include "planning/plan.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {
namespace {

PlanInputs p4d_bert(int hosts) {
  PlanInputs in;
  EXPECT_TRUE(
      set_plan_cluster(in, *topo::make_cluster_spec("p4d.24xlarge", hosts), "\"p4d.24xlarge\""));
  in.model = *load_model_profile("bert-large");
  in.compute.batch_per_gpu = 8;
  return in;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PlanKeep, NamesParseAndPrintInOneOrder) {
  PlanKeep k;
  ASSERT_TRUE(add_plan_keep(k, "nccl"));
  ASSERT_TRUE(add_plan_keep(k, "numerics"));
  EXPECT_EQ(plan_keep_names(k), (std::vector<std::string>{"numerics", "nccl"}));
  const auto bad = add_plan_keep(k, "bf16");
  ASSERT_FALSE(bad);
  EXPECT_TRUE(has(bad.error().message, "known: numerics, nccl")) << bad.error().message;
}

TEST(PlanKeep, NcclExcludesEveryRowThatNeedsTunerRules) {
  const PlanKeep keep{.numerics = false, .nccl = true};
  for (const char* name : {"nccl:ring", "nccl:tree", "nccl:default/ch4", "nccl:ring/ch8"}) {
    EXPECT_FALSE(keep_allows(keep, Framework::Ddp, *parse_algorithm_choice(name))) << name;
  }
  const AlgorithmChoice hier = *parse_algorithm_choice("hierarchical(ring)");
  EXPECT_FALSE(keep_allows(keep, Framework::Ddp, hier));     // the hook's rules
  EXPECT_TRUE(keep_allows(keep, Framework::Horovod, hier));  // HOROVOD_TORUS_ALLREDUCE
  EXPECT_TRUE(keep_allows(keep, Framework::Ddp, *parse_algorithm_choice("nccl:default")));
  EXPECT_TRUE(keep_allows(PlanKeep{}, Framework::Ddp, hier));
}

TEST(PlanKeep, NumericsContradictsA16BitDtype) {
  std::vector<sched::DataType> dtypes;
  ASSERT_TRUE(plan_keep_dtypes({.numerics = true}, dtypes));
  EXPECT_EQ(dtypes, std::vector<sched::DataType>{sched::DataType::F32});
  PlanInputs in = p4d_bert(2);
  in.keep.numerics = true;
  in.dtypes = {sched::DataType::BF16};
  const auto plan = make_plan(in);
  ASSERT_FALSE(plan);
  EXPECT_TRUE(has(plan.error().message, "--keep numerics")) << plan.error().message;
}

// p4d x 4: the unrestricted plan changes the dtype and NCCL (rules); kept, neither changes,
// nothing NCCL-related is emitted, and the sentence and JSON say what was kept.
TEST(PlanKeep, KeptPlansChangeNeitherAndReplay) {
  const auto free = make_plan(p4d_bert(4));
  ASSERT_TRUE(free) << free.error().message;
  const Candidate& f = free->report.recommendation;
  ASSERT_FALSE(free->keeps_defaults);
  // What makes the kept plans below meaningful: without --keep both would change.
  EXPECT_NE(f.dtype, sched::DataType::F32);
  EXPECT_TRUE(needs_tuner_rules(f.algo) || f.algo.kind == AlgoKind::Hierarchical) << f.algo.name();

  PlanInputs in = p4d_bert(4);
  in.keep = {.numerics = true, .nccl = true};
  const auto kept = make_plan(in);
  ASSERT_TRUE(kept) << kept.error().message;
  for (const Candidate& c : kept->report.candidates) {
    EXPECT_EQ(c.dtype, sched::DataType::F32) << c.algo.name();
    EXPECT_NE(c.algo.kind, AlgoKind::NcclRing);
    EXPECT_NE(c.algo.kind, AlgoKind::NcclTree);
  }
  const Candidate& r = kept->report.recommendation;
  EXPECT_TRUE(keep_allows(in.keep, Framework::Ddp, r.algo)) << r.algo.name();
  const std::string sentence = recommendation_sentence(*kept);
  EXPECT_TRUE(has(sentence, "Kept as they are (--keep): fp32 gradients")) << sentence;
  EXPECT_TRUE(has(sentence, "NCCL's own settings")) << sentence;
  const auto files = emit(*kept, "all");
  ASSERT_TRUE(files);
  for (const EmittedFile& e : *files) {
    EXPECT_NE(e.name, "nccl_tuner_rules.txt");
    EXPECT_FALSE(has(e.content, "NCCL_TUNER_PLUGIN")) << e.name;
    EXPECT_FALSE(has(e.content, "compress_hook")) << e.name;
  }
  const std::string text = plan_to_json(*kept);
  EXPECT_EQ(nlohmann::json::parse(text)["inputs"]["keep"],
            nlohmann::json::array({"numerics", "nccl"}));
  const auto stored = read_plan_json(text, "plan.json");
  ASSERT_TRUE(stored) << stored.error().message;
  EXPECT_EQ(stored->inputs.keep, in.keep);
  const auto again = make_plan(stored->inputs);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(plan_to_json(*again), text);
}

}  // namespace
}  // namespace topotune::tune
