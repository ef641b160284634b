// One model of time: NCCL's algorithms and topotune's schedules timed on the same
// topology with the same parameters. Placement and an oversubscribed spine slow every candidate and
// no candidate beats the bisection; the screen agrees with the rank stage within the stated margin;
// parameters fitted by calibrate on a real log move topotune's schedules.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "calibration/calibration.h"
#include "calibration/link_calibration.h"
#include "planning/tuner.h"
#include "timing/model_timers.h"
#include "topology/topology.h"

namespace topotune::tune {
namespace {

algo::NcclModelParams fitted_model() {
  return algo::load_params_file(std::string(TOPOTUNE_TEST_DATA_DIR) + "/nccl_model.json",
                                algo::default_params())
      .value();
}

// A catalog cluster whose link classes carry `params` (what every command does to a catalog
// cluster: cli::apply_calibration_file).
topo::ClusterSpec cluster(const char* instance, int nodes, topo::Placement placement,
                          double oversubscription, const algo::NcclModelParams& params) {
  topo::ClusterSpec spec = topo::make_cluster_spec(instance, nodes, placement).value();
  if (placement != topo::Placement::Cluster) spec.fabric.oversubscription = oversubscription;
  EXPECT_TRUE(apply_model_to_links(params, spec).has_value());
  return spec;
}

struct Timed {
  std::unique_ptr<ModelTimers> model;
  std::unique_ptr<SimulatorTimer> rank;
  double bisection = 0;  // bytes/s per direction, nominal
};

Timed timed(const topo::ClusterSpec& spec, const algo::NcclModelParams& params) {
  Timed t;
  t.model = ModelTimers::create(spec, params).value();
  t.rank = t.model->simulator(1_GiB).value();
  t.bisection = topo::build_topology(spec).value().bisection_bandwidth().value;
  return t;
}

const std::vector<Bytes> kSizes = {64_KiB, 4_MiB, 256_MiB, 1_GiB};

// p4d x 8, spine 16:1: with partition or spread placement every candidate of the plan's search
// (NCCL's nccl-default, ring, tree; topotune's rhd, ps, hierarchical) is at least as slow as with
// cluster placement, in both stages, and its algbw stays below the bisection bandwidth (an
// allreduce moves the whole buffer across any bisection in each direction, so busbw <= bisection x
// 2(n-1)/n).
TEST(OneModel, P4dOversubscribedSpineSlowsEveryCandidateWithinBisection) {
  const algo::NcclModelParams params = fitted_model();
  const Timed base = timed(cluster("p4d.24xlarge", 8, topo::Placement::Cluster, 1, params), params);
  for (topo::Placement placement : {topo::Placement::Partition, topo::Placement::Spread}) {
    const Timed far = timed(cluster("p4d.24xlarge", 8, placement, 16, params), params);
    ASSERT_GT(far.bisection, 0);
    ASSERT_LT(far.bisection, base.bisection);
    for (const AlgorithmChoice& a : default_algorithms(8)) {
      for (Bytes s : kSizes) {
        const std::string what =
            a.name() + " " + topo::placement_name(placement) + " " + std::to_string(s.value);
        for (int stage = 0; stage < 2; ++stage) {
          const CollectiveTimer& b =
              stage ? static_cast<const CollectiveTimer&>(*base.rank) : base.model->screen();
          const CollectiveTimer& f =
              stage ? static_cast<const CollectiveTimer&>(*far.rank) : far.model->screen();
          const Expected<Seconds> tb = b.allreduce(a, s), tf = f.allreduce(a, s);
          ASSERT_TRUE(tb.has_value()) << what << ": " << tb.error().message;
          ASSERT_TRUE(tf.has_value()) << what << ": " << tf.error().message;
          EXPECT_GE(tf->value, tb->value * (1 - 1e-9)) << what << " stage " << stage;
          EXPECT_LE(s.as_double() / tf->value, far.bisection * (1 + 1e-9))
              << what << " stage " << stage << ": algbw above the bisection";
        }
      }
    }
    // NCCL's own algorithms see the spine too (the predictor used to be blind to placement).
    const AlgorithmChoice nccl{AlgoKind::NcclDefault};
    EXPECT_GT(far.model->screen().allreduce(nccl, 1_GiB)->value,
              1.5 * base.model->screen().allreduce(nccl, 1_GiB)->value);
  }
}

// On a non-blocking cluster the probe changes nothing: the NCCL predictor gives exactly what it
// gives without a fabric (the accuracy on nccl-tests logs cannot move). Both the cluster
// placement (which the probe recognises as its own reference) and the same segment stated as one
// rack of all hosts (which it simulates against the reference) are checked.
TEST(OneModel, ClusterPlacementLeavesTheNcclPredictorUnchanged) {
  const algo::NcclModelParams params = fitted_model();
  for (const char* instance : {"p4d.24xlarge", "p5.48xlarge", "p3dn.24xlarge", "g4dn.12xlarge"})
    for (int one_rack = 0; one_rack < 2; ++one_rack) {
      topo::ClusterSpec spec = cluster(instance, 4, topo::Placement::Cluster, 1, params);
      if (one_rack) spec.fabric.hosts_per_rack = spec.hosts;
      const auto model = ModelTimers::create(spec, params).value();
      EXPECT_EQ(model->fabric().ring_share, 1.0) << instance;
      EXPECT_EQ(model->fabric().tree_share, 1.0) << instance;
      EXPECT_EQ(model->fabric().extra_crossing_latency.value, 0.0) << instance;
      const algo::NcclPredictor plain(algo::nccl_system_from_cluster(spec).value(), params, {});
      const algo::NcclPredictor probed(model->system(), params, {});
      for (Bytes s : kSizes) {
        EXPECT_EQ(plain.predict(sched::Collective::Allreduce, s)->chosen.time.value,
                  probed.predict(sched::Collective::Allreduce, s)->chosen.time.value);
      }
    }
}

// The screen (closed forms) and the rank stage (flow simulator) of topotune's schedules differ by
// at most kScreenMargin for any size, on a non-blocking and on an oversubscribed cluster; NCCL's
// algorithms are timed by the same predictor in both stages.
TEST(OneModel, ScreenAgreesWithRankStageWithinTheStatedMargin) {
  const algo::NcclModelParams params = fitted_model();
  for (topo::Placement placement : {topo::Placement::Cluster, topo::Placement::Spread}) {
    const Timed t = timed(cluster("p4d.24xlarge", 4, placement, 16, params), params);
    for (const AlgorithmChoice& a : default_algorithms(4)) {
      for (Bytes s : {1_MiB, 8_MiB, 25_MiB, 64_MiB, 512_MiB}) {
        const double screen = t.model->screen().allreduce(a, s)->value;
        const double rank = t.rank->allreduce(a, s)->value;
        EXPECT_LE(std::abs(screen / rank - 1), kScreenMargin)
            << a.name() << " " << topo::placement_name(placement) << " " << s.value << ": screen "
            << screen << " s, rank " << rank << " s";
      }
    }
  }
}

// nccl-tests all_reduce_perf, 2 x p4d.24xlarge, NCCL 2.23.4, out-of-place times (us), from the AWS
// DLAMI developer guide's EFA page (data/validation/nccl_tests_calibration.json entry
// aws_p4d_2n_dlami_nccl2.23.4).
const std::vector<MeasuredPoint> kP4dLog = {
    {Bytes(65536), 238.6},      {Bytes(262144), 248.3},      {Bytes(1048576), 408.7},
    {Bytes(4194304), 924.5},    {Bytes(16777216), 1269.9},   {Bytes(67108864), 2446.7},
    {Bytes(268435456), 7351.9}, {Bytes(1073741824), 26416.0}};

// calibrate on the real log from a round-number prior, then time topotune's schedules with the
// fitted parameters: the network efficiency and NIC latency the fit found move them as the physics
// says (bandwidth-bound times by the efficiency ratio, small sizes with the latency).
TEST(OneModel, CalibrateOnARealLogMovesTopotuneSchedules) {
  algo::NcclModelParams prior = fitted_model();
  const int efa = static_cast<int>(algo::NicClass::EfaSrd);
  prior.net_efficiency[efa] = 0.5;
  prior.nic_latency_us[efa] = 5;
  CalibrationCase c;
  c.name = "aws_p4d_2n_dlami_nccl2.23.4";
  c.system =
      algo::nccl_system_from_cluster(topo::make_cluster_spec("p4d.24xlarge", 2).value()).value();
  c.options.version = algo::parse_nccl_version("2.23.4").value();
  c.points = kP4dLog;
  CalibrationOptions o;
  o.parameters = {"net_efficiency.efa_srd", "nic_latency_us.efa_srd"};
  const CalibrationResult fit = calibrate({c}, prior, o).value();
  const double eff = fit.params.net_efficiency[efa], lat = fit.params.nic_latency_us[efa];
  ASSERT_GT(std::abs(eff / 0.5 - 1), 0.2) << "the fit did not move the efficiency";
  ASSERT_GT(std::abs(lat / 5 - 1), 0.5) << "the fit did not move the latency";

  const Timed before = timed(cluster("p4d.24xlarge", 4, topo::Placement::Cluster, 1, prior), prior);
  const Timed after =
      timed(cluster("p4d.24xlarge", 4, topo::Placement::Cluster, 1, fit.params), fit.params);
  for (const char* name : {"hierarchical(rhd)", "rhd", "hierarchical(ring)"}) {
    const AlgorithmChoice a = parse_algorithm_choice(name).value();
    for (int stage = 0; stage < 2; ++stage) {
      const auto time = [&](const Timed& t, Bytes s) {
        return (stage ? static_cast<const CollectiveTimer&>(*t.rank) : t.model->screen())
            .allreduce(a, s)
            ->value;
      };
      // 4 GiB: the network's bytes dominate and scale with 1 / efficiency (the NVLink phases of
      // hierarchical do not): at least 80 % of the efficiency ratio's effect shows.
      const double ratio = time(after, 4_GiB) / time(before, 4_GiB);
      EXPECT_GE(ratio, 0.5 / eff * (1 - 1e-9)) << name << " stage " << stage;
      EXPECT_GE(std::abs(1 - ratio), 0.8 * std::abs(1 - 0.5 / eff)) << name << " stage " << stage;
      // 64 KiB: latency-bound; it moves with the fitted NIC latency, in its direction.
      EXPECT_EQ(time(after, 64_KiB) > time(before, 64_KiB), lat > 5) << name << " stage " << stage;
    }
  }
}

}  // namespace
}  // namespace topotune::tune
