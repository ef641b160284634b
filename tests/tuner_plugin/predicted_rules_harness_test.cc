// The rules `predict --tuner-rules` writes, loaded by the built plugin as NCCL loads it
// (nccl_like_tuner.h) through every API version v2..v6: at every sampled size 1 KiB .. 16 GiB
// of allreduce, allgather and reduce-scatter on the cluster's world communicator, NCCL's pick
// from its cost table after the plugin's getCollInfo is predict's recommended (algorithm,
// protocol): the rule where there is one, NCCL's own choice otherwise. The cost table is
// NCCL's own estimate of each (algorithm, protocol) as the model reproduces it, -1 for what
// NCCL does not allow, so its lowest entry is NCCL's own choice; the expected picks come from
// the library code predict calls (planning/predicted_tuner_rules.h), not from a list.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/nccl/nccl_predictor.h"
#include "calibration/calibration_file.h"
#include "planning/error_band.h"
#include "planning/predicted_tuner_rules.h"
#include "tests/lib/temp_dir.h"
#include "tests/tuner_plugin/nccl_like_tuner.h"
#include "timing/fabric_probe.h"
#include "topology/cluster_spec.h"
#include "tuner_plugin/rules.h"

namespace topotune::tune {
namespace {

using algo::NcclAlgo;
using algo::NcclProto;
using tuner_test::NcclLikeTuner;
using tuner_test::Table;

int nccl_index(NcclAlgo a) {
  switch (a) {
    case NcclAlgo::Tree:
      return NCCL_ALGO_TREE;
    case NcclAlgo::Ring:
      return NCCL_ALGO_RING;
    case NcclAlgo::Nvls:
      return NCCL_ALGO_NVLS;
    case NcclAlgo::NvlsTree:
      return NCCL_ALGO_NVLS_TREE;
    case NcclAlgo::Pat:
      return NCCL_ALGO_PAT;
  }
  return NCCL_ALGO_UNDEF;
}

std::pair<int, int> nccl_index(NcclPick p) {
  return {nccl_index(p.algo), static_cast<int>(p.proto)};  // LL, LL128, Simple: 0, 1, 2
}

ncclFunc_t nccl_func(sched::Collective c) {
  switch (c) {
    case sched::Collective::Allgather:
      return ncclFuncAllGather;
    case sched::Collective::ReduceScatter:
      return ncclFuncReduceScatter;
    default:
      return ncclFuncAllReduce;
  }
}

// What predict --tuner-rules computes on, made by the calls cli/predict_command.cc makes.
struct ModelInputs {
  algo::NcclSystem system;
  algo::NcclModelParams params;
};

ModelInputs setup_for(const char* instance, int nodes, const std::string& calibration) {
  auto spec = topo::make_cluster_spec(instance, nodes);
  EXPECT_TRUE(spec) << instance;
  EXPECT_TRUE(apply_calibration_file(calibration, *spec));
  auto params = load_nccl_model(calibration);
  EXPECT_TRUE(params) << params.error().message;
  auto system = nccl_system_on_fabric(*spec, *params);
  EXPECT_TRUE(system) << system.error().message;
  return {*system, *params};
}

// NCCL's cost table at one size: its own estimate (us) of each (algorithm, protocol) it
// allows, -1 elsewhere (CollNet and PAT, which no modelled cluster enables, included).
Table nccl_cost_table(const algo::NcclPredictor& p, sched::Collective c, Bytes b) {
  Table t;
  for (auto& row : t) row.fill(static_cast<float>(NCCL_ALGO_PROTO_IGNORE));
  for (NcclAlgo a : {NcclAlgo::Tree, NcclAlgo::Ring, NcclAlgo::Nvls, NcclAlgo::NvlsTree}) {
    for (NcclProto q : {NcclProto::LL, NcclProto::LL128, NcclProto::Simple}) {
      const algo::NcclCandidate cand = p.evaluate(c, b, a, q);
      if (cand.enabled)
        t[nccl_index(a)][static_cast<int>(q)] = static_cast<float>(cand.nccl_estimate.us());
    }
  }
  return t;
}

std::vector<Bytes> sweep() {
  std::vector<Bytes> s;
  for (std::int64_t n = 1024; n <= (std::int64_t{16} << 30); n *= 2) s.push_back(Bytes(n));
  return s;
}

struct Outcome {
  int samples = 0;
  int ruled = 0;  // samples whose recommended pick is not NCCL's own
  int aws = 0;    // of those, the AWS tuner's pick restated
  int faster = 0;
};

class PredictedRulesHarness : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("NCCL_TUNER_TOPOTUNE_RULES"); }

  // Every API version's pick at every sample equals the recommended one; returns the counts.
  Outcome check(const char* instance, int nodes, const std::string& calibration = "") {
    SCOPED_TRACE(std::string(instance) + " x " + std::to_string(nodes) + " " + calibration);
    const ModelInputs s = setup_for(instance, nodes, calibration);
    auto rules = predict_tuner_rules(s.system, s.params, algo::NcclOptions{}, sweep());
    EXPECT_TRUE(rules) << rules.error().message;
    if (!rules) return {};
    TunerRulesContext ctx;
    ctx.nodes = s.system.nodes;
    ctx.ranks = s.system.ranks();
    const std::string path = (dir_.path() / "rules.txt").string();
    std::ofstream(path, std::ios::binary) << predicted_tuner_rules_file(*rules, ctx);
    setenv("NCCL_TUNER_TOPOTUNE_RULES", path.c_str(), 1);
    algo::NcclOptions no_tuner;
    no_tuner.tuner = algo::NcclTunerMode::None;
    const algo::NcclPredictor cost_model(s.system, s.params, no_tuner);
    Outcome out;
    for (int newest = 2; newest <= 6; ++newest) {
      NcclLikeTuner tuner(newest);
      EXPECT_TRUE(tuner.loaded());
      if (!tuner.loaded()) return {};
      EXPECT_EQ(tuner.init(static_cast<size_t>(ctx.ranks), static_cast<size_t>(ctx.nodes)),
                ncclSuccess);
      out = {};
      for (const CollectiveTunerRules& coll : *rules) {
        // The plan's bands: this communicator's kind, the collective, no release stated.
        const ClusterBands bands(s.system, algo::NcclVersion{}, coll.collective);
        for (const TunerRuleSample& sample : coll.samples) {
          Table table = nccl_cost_table(cost_model, coll.collective, sample.bytes);
          // The table is NCCL's: its lowest entry is NCCL's own choice as predicted.
          EXPECT_EQ(tuner_test::nccl_choice(table), nccl_index(sample.nccl)) << sample.bytes.value;
          int channels = 0;
          EXPECT_EQ(tuner.get(nccl_func(coll.collective), static_cast<size_t>(sample.bytes.value),
                              table, &channels),
                    ncclSuccess);
          EXPECT_EQ(tuner_test::nccl_choice(table), nccl_index(sample.recommended))
              << "v" << tuner.version() << " " << sched::collective_name(coll.collective) << " "
              << sample.bytes.value;
          EXPECT_EQ(channels, 0);  // rules leave NCCL's channel count
          // The gain threshold: topotune's fastest replaces the predicted default only beyond
          // both predictions' held-out error (planning/error_band.h) at this size.
          const double error = bands.figure(sample.bytes).error;
          EXPECT_GT(error, 0);
          EXPECT_EQ(sample.band, error);
          const double gain = sample.default_time.value - sample.fastest_time.value;
          const double band = error * (sample.default_time.value + sample.fastest_time.value);
          EXPECT_EQ(sample.recommended == sample.fastest && sample.reason == PickReason::Faster,
                    gain > band)
              << sample.bytes.value;
          if (gain <= band) {
            EXPECT_TRUE(sample.recommended == sample.default_pick) << sample.bytes.value;
          }
          ++out.samples;
          out.ruled += sample.needs_rule();
          out.aws += sample.needs_rule() && sample.reason == PickReason::AwsTuner;
          out.faster += sample.needs_rule() && sample.reason == PickReason::Faster;
        }
      }
      EXPECT_EQ(tuner.finalize(), ncclSuccess);
    }
    return out;
  }

  test_support::TempDir dir_{"topotune-predicted-rules"};
};

// A calibration that makes NVLS slower (its efficiencies fitted lower) adds picks on a cluster
// where the built-in parameters leave NCCL's allreduce choices standing (they rule only
// all-gather and reduce-scatter at 1-2 MiB, LL over the network-paced LL128): the rules follow
// the calibrated model, and the plugin applies them.
TEST_F(PredictedRulesHarness, CalibratedModelChangesTheRules) {
  const std::string cal = (dir_.path() / "cal.json").string();
  std::ofstream(cal) << R"({"schema": "topotune.nccl_model/2", "parameters": {)"
                        R"("nvls_efficiency": {"value": 0.3},)"
                        R"("nvls_tree_efficiency": {"value": 0.25}}})";
  const Outcome built_in = check("dgx-h100", 4);
  const Outcome calibrated = check("dgx-h100", 4, cal);
  EXPECT_EQ(built_in.ruled, built_in.faster);
  EXPECT_GT(calibrated.faster, built_in.faster);
}

TEST_F(PredictedRulesHarness, PluginPicksPredictsRecommendationAtEverySampledSize) {
  for (const char* instance : {"p4d.24xlarge", "p5.48xlarge", "dgx-h100"}) {
    const Outcome o = check(instance, 4);
    EXPECT_EQ(o.samples, 3 * 25) << instance;
    std::cout << instance << " x 4: " << o.ruled << " of " << o.samples
              << " samples ruled (AWS tuner restated " << o.aws << ", faster " << o.faster << ")\n";
  }
}

// On p5.48xlarge beyond two nodes NCCL's predicted choice for allreduce is the AWS region
// tuner's, which the plugin replaces: the rules restate it wherever it differs from NCCL's
// cost model, so loading topotune's plugin keeps it.
TEST_F(PredictedRulesHarness, P5RulesRestateTheAwsTunersPicks) {
  const Outcome o = check("p5.48xlarge", 4);
  EXPECT_GT(o.aws, 0);
}

// The file parses whole with the plugin's own parser, also when the header's free text is
// hostile (a newline would start a rule line, a long path would void the file past 512
// bytes), with one rule line per range.
TEST(PredictedRulesFile, ParsesWholeWithHostileHeaderText) {
  const ModelInputs s = setup_for("p5.48xlarge", 4, "");
  auto rules = predict_tuner_rules(s.system, s.params, algo::NcclOptions{}, sweep());
  ASSERT_TRUE(rules);
  int ranges = 0;
  for (const CollectiveTunerRules& coll : *rules) {
    for (std::size_t i = 0; i < coll.samples.size(); ++i) {
      const TunerRuleSample& x = coll.samples[i];
      const bool continues = i > 0 && coll.samples[i - 1].needs_rule() &&
                             coll.samples[i - 1].recommended == x.recommended &&
                             coll.samples[i - 1].reason == x.reason;
      ranges += x.needs_rule() && !continues;
    }
  }
  ASSERT_GT(ranges, 0);
  TunerRulesContext ctx;
  ctx.nodes = 4;
  ctx.ranks = 32;
  ctx.cluster = std::string(2000, 'c');
  ctx.calibration = "cal.json\nallreduce 0 -1 -1 -1 tree LL";
  ctx.restrictions = "NCCL_ALGO=ring\r\n";
  const tuner_plugin::RulesParse parsed =
      tuner_plugin::parse_rules(predicted_tuner_rules_file(*rules, ctx));
  EXPECT_EQ(parsed.error, "");
  EXPECT_EQ(static_cast<int>(parsed.rules.size()), ranges);
}

}  // namespace
}  // namespace topotune::tune
