#pragma once
// The tuner plugin's rules (libnccl-tuner-topotune.so, docs/tuner-plugin.md) for a whole
// cluster, made from `predict`'s NCCL model: `predict --tuner-rules FILE` writes them.
//
// For allreduce, allgather and reduce-scatter at each sampled size, on the job's world
// communicator (all nodes, all ranks), three choices are compared:
//  - what NCCL runs when topotune's plugin is loaded and has no rule: NCCL's own cost model
//    (NCCL loads one tuner, so on the AWS tuner's platforms, p5, p5e, p5en, p6-b200 and p6-b300,
//    the AWS region tuner is then not loaded);
//  - the predicted default, what NCCL runs without topotune's plugin (predict's own row: the
//    AWS region tuner where it decides, NCCL's cost model elsewhere);
//  - topotune's fastest, the (algorithm, protocol) with the shortest predicted time among those
//    NCCL allows for that collective and cluster (NCCL's enable rules as the model reproduces
//    them: no NVLS without NVLS support, PAT only with one GPU per node; CollNet is not
//    modelled, so never picked).
// The recommended pick is topotune's fastest when it beats the predicted default by more than
// both predictions' held-out error bands (planning/error_band.h, as the plan's recommendation
// requires: the error-band table's figure for the communicator's kind of cluster, the
// collective and the size), else the predicted default. A rule is written exactly where the
// recommended pick differs from what NCCL would run with the plugin loaded: topotune's gains, and
// on the AWS tuner's platforms its picks restated, so loading topotune's plugin does not lose
// them.

#include <string>
#include <vector>

#include "algorithms/nccl/nccl_params.h"
#include "algorithms/nccl/nccl_predictor.h"
#include "algorithms/nccl/nccl_system.h"
#include "algorithms/schedule/collective_spec.h"
#include "core/expected.h"
#include "core/units.h"

namespace topotune::tune {

/// One (algorithm, protocol) NCCL can be told to run.
struct NcclPick {
  algo::NcclAlgo algo = algo::NcclAlgo::Ring;
  algo::NcclProto proto = algo::NcclProto::Simple;
  friend bool operator==(const NcclPick&, const NcclPick&) = default;
};

/// Why the recommended pick is what it is.
enum class PickReason {
  NcclChoice,  ///< NCCL's cost model's own choice: no rule
  AwsTuner,    ///< the AWS region tuner's choice, restated because the plugin replaces it
  Faster,      ///< topotune's fastest, beyond the error band
};

/// The three choices at one sampled size (NCCL's nBytes: the whole buffer for allgather and
/// reduce-scatter, as predict's size column).
struct TunerRuleSample {
  Bytes bytes{0};
  NcclPick nccl;          ///< NCCL's cost model: what runs with the plugin loaded and no rule
  NcclPick default_pick;  ///< predict's row: NCCL with the AWS tuner where it decides
  Seconds default_time{0};
  NcclPick fastest;  ///< topotune's fastest among the (algorithm, protocol) NCCL allows
  Seconds fastest_time{0};
  NcclPick recommended;  ///< fastest when beyond the band, else default_pick
  double band = 0;       ///< the expected |error| of each time at this size (a fraction)
  PickReason reason = PickReason::NcclChoice;
  /// True when a rule is needed: the recommended pick is not NCCL's cost model's own.
  [[nodiscard]] bool needs_rule() const { return !(recommended == nccl); }
};

/// Every sampled size of one collective, in increasing size.
struct CollectiveTunerRules {
  sched::Collective collective = sched::Collective::Allreduce;
  std::string band_source;  ///< where its bands come from (the table's group, any size)
  std::vector<TunerRuleSample> samples;
};

/// The collectives rules are made for: allreduce, allgather, reduce-scatter.
const std::vector<sched::Collective>& tuner_rule_collectives();

/// The recommended picks for every collective of tuner_rule_collectives() at `sizes`
/// (strictly increasing, each a valid collective size) on `system`, NCCL restricted as
/// `options` say; the bands are those of options.version's release bucket ("unknown" when no
/// release was given). Errors when a size is invalid or NCCL has nothing enabled.
Expected<std::vector<CollectiveTunerRules>> predict_tuner_rules(const algo::NcclSystem& system,
                                                                const algo::NcclModelParams& params,
                                                                const algo::NcclOptions& options,
                                                                const std::vector<Bytes>& sizes);

/// What the file's header states besides the rules: free text from input goes through
/// comment_text, so it cannot end a comment line.
struct TunerRulesContext {
  std::string cluster;       ///< "p5.48xlarge x 4 node(s), spread placement"
  std::string nccl;          ///< "2.30.7" (the release the model follows)
  std::string calibration;   ///< the --calibration path, empty for the built-in parameters
  std::string restrictions;  ///< NCCL_ALGO / NCCL_PROTO / channels assumed, empty when none
  int nodes = 0;
  int ranks = 0;
};

/// The rules file: a header saying what was assumed, then per collective one line per range
/// of consecutive sampled sizes with the same rule (a sampled size covers itself up to the
/// next sampled size - 1; the last covers only itself), on (ctx.nodes, ctx.ranks).
std::string predicted_tuner_rules_file(const std::vector<CollectiveTunerRules>& rules,
                                       const TunerRulesContext& ctx);

}  // namespace topotune::tune
