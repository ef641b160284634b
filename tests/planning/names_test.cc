// Names of the planning enums: each parser reads what its name function writes (one table for
// both directions), and each refusal keeps the wording users and scripts already match.

#include <gtest/gtest.h>

#include "planning/compute_efficiency.h"
#include "planning/framework.h"
#include "planning/plan.h"
#include "planning/training_precision.h"

namespace topotune::tune {
namespace {

TEST(PlanningNames, EachValueParsesFromItsOwnName) {
  for (Framework f : all_frameworks()) EXPECT_EQ(*parse_framework(framework_name(f)), f);
  for (TrainingPrecision p : {TrainingPrecision::Fp32, TrainingPrecision::Tf32,
                              TrainingPrecision::AmpFp16, TrainingPrecision::AmpBf16}) {
    EXPECT_EQ(*parse_precision(precision_name(p)), p);
  }
  for (PlanBackend b : {PlanBackend::Nccl, PlanBackend::Mpi}) {
    EXPECT_EQ(*parse_plan_backend(plan_backend_name(b)), b);
  }
  for (ModelFamily m : {ModelFamily::Convnet, ModelFamily::Transformer}) {
    EXPECT_EQ(*parse_model_family(model_family_name(m)), m);
  }
}

TEST(PlanningNames, RefusalsKeepTheirWording) {
  EXPECT_EQ(parse_framework("fsdpp").error().message,
            "unknown framework 'fsdpp' (known: ddp, horovod, smddp, topotune, fsdp)");
  EXPECT_EQ(framework_names_text(), "ddp, horovod, smddp, topotune, fsdp");
  EXPECT_EQ(parse_precision("fp64").error().message,
            "unknown precision 'fp64' (known: fp32, tf32, amp-fp16, amp-bf16)");
  EXPECT_EQ(parse_plan_backend("gloo").error().message, "unknown backend 'gloo' (nccl, mpi)");
  const Expected<ModelFamily> family = parse_model_family("rnn");
  EXPECT_EQ(family.error().code, Errc::ParseError);
  EXPECT_EQ(family.error().message, "'family' must be \"convnet\" or \"transformer\", got \"rnn\"");
}

}  // namespace
}  // namespace topotune::tune
