// One registration per algorithm: a toy allreduce registered with one row
// (register_algorithm_family) reaches every command through the functions the commands call:
// schedule and simulate (algo::make_algorithm, tune::simulate_collective), predict --algo
// (tune::schedule_times), plan (tune::make_plan, --algos), the frameworks' capability table
// and hierarchical(X). Its own binary: the registration lasts for the process, and the other
// tests' plans search every family.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "algorithms/algorithm_choice.h"
#include "algorithms/algorithm_family.h"
#include "algorithms/parameter_server.h"
#include "algorithms/phase_context.h"
#include "algorithms/rank_layout.h"
#include "algorithms/registry.h"
#include "algorithms/schedule/interpreter.h"
#include "planning/framework.h"
#include "planning/plan.h"
#include "planning/plan_algorithms.h"
#include "timing/collective_simulation.h"
#include "timing/schedule_timing.h"
#include "topology/cluster_spec.h"

namespace topotune {
namespace {

// The toy: every rank reduces its whole buffer into rank 0, then rank 0 sends the sum back.
// 2(n-1) transfers, 2 steps; rank 0's port carries (n-1)·S each way.
class Star final : public algo::Algorithm {
 public:
  using Algorithm::Algorithm;
  std::string name() const override { return "star"; }
  Expected<void> supports(const sched::CollectiveSpec& spec,
                          const algo::RankLayout& layout) const override {
    return check_common(spec, layout, {sched::Collective::Allreduce});
  }
  Expected<sched::Schedule> generate(const sched::CollectiveSpec& spec,
                                     const algo::RankLayout& layout) const override {
    TT_TRY_VOID(supports(spec, layout));
    sched::ScheduleBuilder b(spec, name());
    std::vector<EndpointId> members;
    for (int r = 0; r < spec.ranks; ++r) members.push_back(EndpointId(r));
    const algo::PhaseContext ctx{b, sched::dtype_size(spec.dtype)};
    add_star(ctx, members, sched::Slice{Bytes(0), spec.bytes});
    return std::move(b).build();
  }
  Expected<Seconds> closed_form(const sched::CollectiveSpec& spec, const algo::RankLayout& layout,
                                const algo::CostParams& p) const override {
    TT_TRY_VOID(supports(spec, layout));
    return Seconds(star_time(spec.ranks, spec.bytes.as_double(), p.inter, p.gamma_gpu()));
  }

  // The star over `members`, member 0 the root.
  static void add_star(const algo::PhaseContext& ctx, const std::vector<EndpointId>& members,
                       sched::Slice region) {
    std::vector<TransferId> pushes;
    for (std::size_t i = 1; i < members.size(); ++i) {
      algo::DepList deps;
      ctx.add_entry(deps, members[i]);
      pushes.push_back(ctx.builder.add(members[i], members[0], region, true, deps));
    }
    for (std::size_t i = 1; i < members.size(); ++i) {
      algo::DepList deps = pushes;
      ctx.add_entry(deps, members[0]);
      const TransferId pull = ctx.builder.add(members[0], members[i], region, false, deps);
      ctx.add_exit(members[i], pull);
      ctx.add_exit(members[0], pull);  // every transfer of the root is a pull or before one
    }
    if (members.size() == 1) ctx.pass_through(members[0]);
  }
  static double star_time(int n, double bytes, const algo::HopCost& hop, double gamma) {
    return 2 * (hop.latency.value + (n - 1) * bytes / hop.bandwidth.value) +
           (n - 1) * bytes * gamma;
  }
};

void star_rail(const algo::PhaseContext& ctx, algo::InnerRail& r) {
  Star::add_star(ctx, r.orders[0], r.shard);
}
double star_rail_time(const algo::InnerCostRail& r) {
  return Star::star_time(r.layout.hosts, r.shard, r.rails.inter, r.params.gamma_gpu());
}
constexpr algo::InnerRole kStarRail{star_rail, star_rail_time};

// The one registration.
algo::AlgoKind star_kind() {
  static const algo::AlgoKind kind = algo::register_algorithm_family({
      algo::AlgoKind::Ring,  // replaced by a fresh kind
      "star",
      {"hub"},
      "toy: reduce into rank 0, send the sum back",
      false,
      algo::FamilyArgument::None,
      [](const algo::AlgorithmOptions& o, sched::Collective) -> std::unique_ptr<algo::Algorithm> {
        return std::make_unique<Star>(o);
      },
      [](std::int64_t h, std::int64_t g, std::int64_t, algo::AlgoKind) { return 2 * (h * g - 1); },
      &kStarRail,
      algo::PlannerSearch::Always,
      false,
  });
  return kind;
}

TEST(FamilyRegistration, NamesParseAndPrintFromTheRow) {
  const algo::AlgoKind star = star_kind();
  EXPECT_EQ(std::string(algo::algo_kind_name(star)), "star");
  const Expected<algo::AlgoKind> alias = algo::parse_algo_kind("hub");
  ASSERT_TRUE(alias) << alias.error().message;
  EXPECT_EQ(*alias, star);
  EXPECT_EQ(algo::parse_algorithm_choice("star/ch2")->name(), "star/ch2");
  EXPECT_EQ(algo::parse_algorithm_choice("hierarchical(star)")->inner, star);
  EXPECT_EQ(*algo::parse_inner_algorithm("hub"), star);
  EXPECT_NE(algo::algorithm_names_text().find("hierarchical(ring|dbtree|rhd|ps(k=N)|star)"),
            std::string::npos);
  const std::vector<std::string> names = algo::algorithm_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "star"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "hierarchical(star)"), names.end());
}

TEST(FamilyRegistration, ScheduleGeneratesAndProves) {
  star_kind();
  for (const char* name : {"star", "hierarchical(star)"}) {
    auto alg = algo::make_algorithm(name, algo::AlgorithmOptions{});
    ASSERT_TRUE(alg) << alg.error().message;
    sched::CollectiveSpec spec;
    spec.ranks = 12;
    spec.bytes = Bytes(4096);
    const algo::RankLayout layout = *algo::flat_layout(12, 4);
    auto s = (*alg)->generate(spec, layout);
    ASSERT_TRUE(s) << name << ": " << s.error().message;
    const Expected<void> proved = sched::verify(*s);
    EXPECT_TRUE(proved) << name << ": " << (proved ? "" : proved.error().message);
    const algo::AlgorithmChoice choice = *algo::parse_algorithm_choice(name);
    EXPECT_EQ(static_cast<std::int64_t>(s->transfers().size()),
              algo::estimated_transfers(choice, 3, 4))
        << name;
  }
}

TEST(FamilyRegistration, SimulateAndPredictTimeIt) {
  star_kind();
  const topo::ClusterSpec spec = *topo::make_cluster_spec("p4d.24xlarge", 2);
  const topo::Topology topology = *topo::build_topology(spec);
  auto alg = algo::make_algorithm("star", algo::AlgorithmOptions{});
  ASSERT_TRUE(alg);
  const algo::RankLayout layout = *algo::layout_from_topology(topology, 1);
  sched::CollectiveSpec c;
  c.ranks = layout.ranks();
  c.bytes = 16_MiB;
  auto sim = tune::simulate_collective(**alg, c, layout, topology, sim::SimOptions{});
  ASSERT_TRUE(sim) << sim.error().message;
  EXPECT_EQ(sim->transfers, 2 * (16 - 1));
  EXPECT_GT(sim->result.makespan.value, 0.0);
  for (auto timing : {tune::ScheduleTiming::ClosedForm, tune::ScheduleTiming::Simulated}) {
    auto t = tune::schedule_times(spec, algo::default_params(), "star",
                                  sched::Collective::Allreduce, {16_MiB}, timing);
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_EQ(t->algorithm, "star");
    ASSERT_EQ(t->rows.size(), 1u);
    EXPECT_GT(t->rows[0].time.value, 0.0);
  }
}

TEST(FamilyRegistration, PlanSearchesItAndTopotuneRunsIt) {
  const algo::AlgoKind star = star_kind();
  const algo::AlgorithmChoice a{star};
  EXPECT_EQ(tune::frameworks_running(a), std::vector<tune::Framework>{tune::Framework::Topotune});
  EXPECT_EQ(tune::how_framework_runs(tune::Framework::Topotune, a),
            "topotune measure --algos star");
  tune::PlanInputs in;
  ASSERT_TRUE(
      tune::set_plan_cluster(in, *topo::make_cluster_spec("p4d.24xlarge", 2), "\"p4d.24xlarge\""));
  in.model = *tune::load_model_profile("bert-large");
  in.compute.batch_per_gpu = 8;
  ASSERT_TRUE(tune::add_plan_algorithm(in, "star"));
  ASSERT_TRUE(tune::add_plan_algorithm(in, "hierarchical"));
  auto plan = tune::make_plan(in);
  ASSERT_TRUE(plan) << plan.error().message;
  int star_rows = 0, hierarchical_star_rows = 0;
  for (const tune::Candidate& c : plan->report.candidates) {
    star_rows += c.algo.kind == star;
    hierarchical_star_rows += c.algo.kind == algo::AlgoKind::Hierarchical && c.algo.inner == star;
  }
  EXPECT_GT(star_rows, 0);
  EXPECT_GT(hierarchical_star_rows, 0);
}

}  // namespace
}  // namespace topotune
