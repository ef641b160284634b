#pragma once
// Plan: the planner's answer for one cluster x model, and everything needed to reproduce it.
//
// make_plan() runs the tuner on PlanInputs; plan_to_json() writes the plan (schema
// "topotune.plan/1", docs/planner.md): instance, nodes, model, the recommendation, the two
// baselines, the ranked candidates, the recommended step's per-bucket timeline, and under
// "inputs" the cluster figures the timers used, the model profile, the compute parameters,
// the calibration file's content and the topotune version. read_plan_json() reads those
// inputs back, so `topotune plan --replay plan.json` recomputes the same answer (and says so
// when this version's answer differs from the stored one). Output is deterministic: numbers
// are rounded to 6 significant digits and nothing iterates an unordered container.

#include <optional>
#include <string>
#include <vector>

#include "algorithms/nccl/nccl_params.h"
#include "algorithms/nccl/nccl_version.h"
#include "core/expected.h"
#include "planning/error_band.h"
#include "planning/framework.h"
#include "planning/gain_attribution.h"
#include "planning/model_profile.h"
#include "planning/peak_bracket.h"
#include "planning/plan_keep.h"
#include "planning/replica_memory.h"
#include "planning/step_model.h"
#include "planning/tuner.h"
#include "timing/cluster_shape.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {

/// The screening timer a plan records (inputs.timer): the algorithms module's closed forms,
/// the only one (plans stored by versions that screened with "alpha-beta" cannot be replayed).
inline constexpr const char* kTimerClosedForm = "closed-form";

/// What runs the job's allreduces.
enum class PlanBackend {
  /// NCCL: nccl-default/ring/tree are NCCL's, timed by the NCCL predictor; the others need
  /// topotune's runtime.
  Nccl,
  /// topotune's runtime without NCCL (`topotune measure --backend mpi`, an emulated cluster):
  /// every candidate is a topotune schedule, ring and tree included (closed forms, then the
  /// simulator), nccl-default is not one, and the baselines' "NCCL defaults" stand for the
  /// better of topotune's ring and tree (closed forms).
  Mpi,
};
const char* plan_backend_name(PlanBackend b);                       ///< "nccl", "mpi"
Expected<PlanBackend> parse_plan_backend(const std::string& name);  ///< else InvalidArgument

/// What a plan is computed from. Typed: make_plan parses nothing. The two records are the
/// documents the plan embeds so that `--replay` rebuilds exactly these inputs; the planner
/// itself computes from `cluster` and `nccl_params` (set both with set_plan_cluster and
/// set_plan_calibration).
struct PlanInputs {
  topo::ClusterSpec cluster;   ///< what every timer models, calibrated link classes included
  std::string cluster_record;  ///< the topotune.cluster/1 document that rebuilds `cluster`
  bool simulate = true;        ///< rank the top candidates with the flow simulator
                               ///< (at every scale, within SimBudget; refusals noted)
  ModelProfile model;
  /// Batch, efficiency and the GPU's peak FLOP/s (0: the GPU's own; the plan records the one
  /// it used).
  ComputeParams compute;
  /// Gradient dtypes searched. Empty: by hardware (the plan records the ones it searched):
  /// fp32 and bf16 where the GPU computes bf16 natively (the catalog's gpu.bf16_native: Ampere
  /// and later), fp32 and fp16 elsewhere (Volta, Turing). bf16 on a GPU without it is an error.
  std::vector<sched::DataType> dtypes;
  /// Algorithm families searched (--algos), e.g. only what a runtime without NCCL can run;
  /// empty: all of them (default_algorithms). The baselines are NCCL's defaults regardless.
  std::vector<AlgoKind> algorithm_kinds;
  /// Those of them also searched over channel counts (--algos X/chN; plan_algorithms.h).
  std::vector<AlgoKind> channel_kinds;
  /// DDP bucket caps searched (--buckets), e.g. to time exactly the configurations a
  /// measurement ran; empty: default_bucket_caps(model). Horovod fusion thresholds too.
  std::vector<Bytes> bucket_caps;
  PlanBackend backend = PlanBackend::Nccl;
  /// What the job runs its allreduces with: the recommendation is a candidate it runs with
  /// the emitted files, or its defaults.
  Framework framework = Framework::Ddp;
  /// The NCCL predictor's parameters: the built-in fit (data/nccl_model.json,
  /// topotune.nccl_model/2) unless a calibration or a replayed plan says otherwise.
  algo::NcclModelParams nccl_params = algo::default_params();
  /// The NCCL release whose choices the predictor reproduces (--nccl-version); unknown: the
  /// latest modeled release. A plan records the release it used, so a replay keeps it.
  algo::NcclVersion nccl_version;
  std::string calibration_record;  ///< the --calibration file's JSON, recorded; "" = none
  /// What the advice must leave as it is (--keep; plan_keep.h): the search skips the rest.
  PlanKeep keep;
  /// The held-out error table the bands come from; null: data/error_bands.json (tests pass
  /// another to reach what the data does not, such as a kind of cluster with no log).
  const ErrorBandTable* error_bands = nullptr;
};

/// Sets inputs.cluster and its record: `spec` written as a topotune.cluster/1 document
/// (cluster_spec_json) and read back, so a fresh plan computes from exactly the figures its
/// replay will read.
Expected<void> set_plan_cluster(PlanInputs& inputs, const topo::ClusterSpec& spec,
                                const std::string& instance_json,
                                const std::string& overrides_json = "");

/// Sets inputs.cluster and its record from a stored topotune.cluster/1 document (a replay).
Expected<void> set_plan_cluster_record(PlanInputs& inputs, const std::string& document);

/// Records a calibration file's JSON and sets inputs.nccl_params to the built-in fit with the
/// file's parameters on top (its link classes are the cluster's business: apply them to the
/// spec given to set_plan_cluster). `origin` names the file in messages.
Expected<void> set_plan_calibration(PlanInputs& inputs, const std::string& text,
                                    const std::string& origin = "calibration");

/// A topotune.cluster/1 document that rebuilds `spec` exactly: `instance` is the catalog name
/// or the cluster file's instance object (with `overrides`, if any); nodes, placement, fabric
/// and every link class's parameters are written out explicitly.
std::string cluster_spec_json(const topo::ClusterSpec& spec, const std::string& instance_json,
                              const std::string& overrides_json = "");

/// What NCCL runs (per the predictor) for a range of the NCCL-runnable plan's bucket sizes.
struct NcclBucketRule {
  std::int64_t min_bytes = 0;  ///< smallest bucket of the run, wire bytes
  std::int64_t max_bytes = 0;  ///< largest
  std::string algo;            ///< nccl_algo_name: "ring", "tree", "nvls", "nvls_tree"
  std::string proto;           ///< nccl_proto_name: "LL", "LL128", "Simple"
  int channels = 0;            ///< the channel count NCCL runs them with
};

/// What make_plan read off the cluster, for the reports.
struct PlanCluster {
  std::string instance;        ///< the spec's instance name
  std::string sagemaker_name;  ///< "ml.p4d.24xlarge", empty if none
  int nodes = 1;
  std::string placement = "cluster";
  ClusterShape shape;
};

struct Plan {
  /// The inputs as the plan used them: the caller's, with the dtypes searched and the peak
  /// FLOP/s used filled in.
  PlanInputs inputs;
  PlanCluster cluster;
  TuneReport report;
  /// For the NCCL candidate the emitted NCCL files configure (the recommendation, or NCCL's
  /// defaults): its buckets grouped by what NCCL runs, ascending sizes.
  std::vector<NcclBucketRule> nccl_rules;
  /// True when nothing the framework runs beats its defaults by kDefaultDtypeMargin: the
  /// recommendation is then the defaults themselves and the emitted files change nothing.
  bool keeps_defaults = false;
  /// When the plan keeps the defaults: the best candidate the framework runs, which did not
  /// beat them by more than kDefaultDtypeMargin and the two steps' error bands (error_band.h).
  std::optional<Candidate> declined;
  /// Each change a DDP recommendation makes to DDP's defaults, timed alone (empty for the
  /// defaults themselves and for other frameworks): what each knob buys.
  std::vector<GainStep> attribution;
  /// One DDP replica's model states against the GPU's memory; the advice says when it does
  /// not fit.
  ReplicaMemory memory;
  /// The error bands of this plan's kind of cluster (error_band.h), set by make_plan.
  ClusterBands bands;
  /// Set when the GPU's peak is unknown and the advice was computed at both ends of the
  /// published figures (peak_bracket.h); the times are at `used_flops`.
  std::optional<PeakBracket> peak_bracket;
  std::string version;                     ///< topotune version that computed it
  std::optional<std::string> replay_note;  ///< set by a replay that changed the answer
};

/// Derives the cluster's shape and runs the tuner: NCCL's algorithms on the NCCL predictor,
/// topotune's on the closed forms, channel counts up to NCCL's MAXCHANNELS, and, if
/// inputs.simulate, the flow simulator as rank timer. A GPU whose peak the catalog does not
/// know but lists published figures for (peak_to_bracket) is planned at both ends: the same
/// advice at both gives the plan (with peak_bracket), different advice is InvalidArgument
/// naming both.
Expected<Plan> make_plan(PlanInputs inputs);

/// The plan as JSON text (pretty-printed, deterministic).
std::string plan_to_json(const Plan& plan, int max_candidates = 25);

/// A stored plan's inputs and recommendation (algorithm, bucket bytes, dtype), for a replay.
struct StoredPlan {
  PlanInputs inputs;
  bool sharded = false;     ///< a sharded plan (schema topotune.sharded_plan/1)
  std::string algorithm;    ///< a DDP plan's recommended algorithm
  std::string sharded_row;  ///< a sharded plan's recommended row label, "" when nothing fit
  std::int64_t bucket_bytes = 0;
  std::string comm_dtype;
  std::string version;
};
/// Reads a plan written by plan_to_json or sharded_plan_to_json (planning/plan_replay.cc).
/// Duplicate keys, lists past the limits below and compute figures check_compute refuses are
/// errors.
Expected<StoredPlan> read_plan_json(const std::string& text, const std::string& origin);

/// Replays a stored plan: make_plan on its inputs, with a replay_note when this version
/// recommends differently from the stored recommendation.
Expected<Plan> replay_plan(const StoredPlan& stored);

/// Bounds on a plan's inputs, from the command line or a replayed plan (docs/limits.md):
/// each dtype and algorithm family at most once, at most 64 bucket sizes of 1 byte to 1 TiB.
inline constexpr std::size_t kMaxPlanDtypes = 3;
inline constexpr std::size_t kMaxPlanAlgorithms = 8;
inline constexpr std::size_t kMaxPlanBuckets = 64;
inline constexpr std::int64_t kMaxPlanBucketBytes = std::int64_t{1} << 40;
inline constexpr double kMaxPeakFlops = 1e17;  ///< FLOP/s per GPU: 100 PFLOP/s
/// FLOP/s per GPU when given (0: the GPU's own): 1 GFLOP/s, instance files' 0.001 TFLOPS floor.
inline constexpr double kMinPeakFlops = 1e9;
/// Achieved / peak compute: 0.1 % is far below any training run; keeps step times finite.
inline constexpr double kMinComputeEfficiency = 1e-3;
/// Fails unless the lists of `in` are within the bounds above.
Expected<void> check_plan_lists(const PlanInputs& in);
/// Fails unless batch per GPU is in [1, kMaxBatchPerGpu], peak FLOP/s is 0 (the GPU's own)
/// or in [kMinPeakFlops, kMaxPeakFlops] and efficiency in [kMinComputeEfficiency, 1].
Expected<void> check_compute(const ComputeParams& c);

/// One sentence: what to use and what it buys.
std::string recommendation_sentence(const Plan& plan);

/// "2.18.5", or "2.30.7 (the latest modeled release)" when the plan was given none: what the
/// report, the JSON and the emitted files say the plan assumed.
std::string nccl_version_words(const algo::NcclVersion& v);

/// The framework's defaults the recommendation is compared with: Horovod's for horovod,
/// NCCL's own choice with DDP's buckets otherwise.
const Candidate& framework_defaults(const Plan& plan);

/// The rows a plan lists (table and JSON), at most `max`: the recommendation first, then the
/// ranked candidates without it.
std::vector<const Candidate*> listed_candidates(const Plan& plan, int max);

/// True when `a` and `b` are the same configuration (algorithm, dtype, buckets, cycle).
bool same_configuration(const Candidate& a, const Candidate& b);

}  // namespace topotune::tune
