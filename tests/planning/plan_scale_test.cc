// The planner at the scale of multi-tier fabrics: the rank stage simulates on the full fabric
// (super-spine included) and its notes say what was simulated, NCCL's algorithms included
// (the fabric probe); schedules counted as reduced by symmetry are generated reduced, and a
// schedule that cannot be must not silently run in full.

#include <gtest/gtest.h>

#include <string>

#include "planning/plan.h"
#include "timing/simulator_timer.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {
namespace {

bool has_note(const std::vector<std::string>& notes, const std::string& part) {
  for (const std::string& n : notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

// 16 p4d hosts in racks of 2 with a leaf per rail, pods of 2 racks: 3 tiers, 4 pods.
topo::ClusterSpec three_tiers() {
  topo::ClusterSpec spec = *topo::make_cluster_spec("p4d.24xlarge", 16);
  spec.fabric.hosts_per_rack = 2;
  spec.fabric.rails_per_leaf = 1;
  spec.fabric.racks_per_pod = 2;
  return spec;
}

TEST(PlanAtScale, RanksOnTheThreeTierFabricAndSaysWhatIsSimulated) {
  PlanInputs in;
  ASSERT_TRUE(set_plan_cluster(in, three_tiers(), "\"p4d.24xlarge\""));
  in.model = *load_model_profile("bert-large");
  in.compute.batch_per_gpu = 8;
  auto plan = make_plan(in);
  ASSERT_TRUE(plan) << plan.error().message;
  const std::vector<std::string>& notes = plan->report.notes;
  const std::string fabric = "32 leaves, 4 spines (pods of 2 racks) and a super-spine";
  EXPECT_TRUE(has_note(notes, "rank stage simulated ")) << notes.size();
  EXPECT_TRUE(has_note(notes, "on the full 16-node fabric (" + fabric + ")"));
  EXPECT_TRUE(has_note(notes,
                       "NCCL's algorithms (nccl:*) are timed by the NCCL predictor in both "
                       "stages; the flow simulator enters their times through the fabric "
                       "probe on the same fabric (" +
                           fabric + ")"));
  // At least one of topotune's own schedules was ranked by the simulator.
  int simulated = 0;
  for (const Candidate& c : plan->report.candidates) simulated += c.model == "simulated";
  EXPECT_GE(simulated, 1);
  // The replay sees the same fabric (the pod keys travel in the plan's cluster document).
  auto stored = read_plan_json(plan_to_json(*plan), "plan.json");
  ASSERT_TRUE(stored) << stored.error().message;
  auto again = make_plan(stored->inputs);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(plan_to_json(*again), plan_to_json(*plan));
}

class ConstTimer final : public CollectiveTimer {
 public:
  std::string name() const override { return "const"; }
  Expected<Seconds> allreduce(const AlgorithmChoice&, Bytes) const override { return Seconds(1.0); }
};

// 6 hosts on one switch: hierarchical(ring) repeats by one host (orbits of 6), so the budget
// counts 1,152 / 6 = 192 transfers; but its rails' shards (1 MiB / 8 / 6 hosts) do not split
// evenly, so no reduced schedule exists, and the full one is over the budget: refused, not run.
TEST(PlanAtScale, ACountedReductionThatDoesNotExistIsRefused) {
  const ConstTimer nccl;
  SimBudget budget;
  budget.max_transfers = 500;
  auto timer =
      SimulatorTimer::create(*topo::make_cluster_spec("p4d.24xlarge", 6), nccl, 8_MiB, budget);
  ASSERT_TRUE(timer) << timer.error().message;
  auto r = (*timer)->allreduce(*parse_algorithm_choice("hierarchical(ring)"), 4_MiB);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::Unsupported);
  EXPECT_NE(r.error().message.find("no schedule reduced by the fabric's symmetry"),
            std::string::npos)
      << r.error().message;
  // On 4 hosts the shards split evenly: generated reduced, 640 / 4 transfers a size.
  auto four = SimulatorTimer::create(*topo::make_cluster_spec("p4d.24xlarge", 4), nccl, 8_MiB,
                                     SimBudget{.max_transfers = 200});
  ASSERT_TRUE(four);
  ASSERT_TRUE((*four)->allreduce(*parse_algorithm_choice("hierarchical(ring)"), 4_MiB));
  EXPECT_EQ((*four)->transfers_simulated(), 2 * 640 / 4);  // samples at 1 and 8 MiB
}

}  // namespace
}  // namespace topotune::tune
