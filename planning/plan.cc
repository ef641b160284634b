#include "planning/plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/enum_names.h"
#include "core/string_printf.h"
#include "core/version.h"
#include "planning/emitters_nccl.h"
#include "planning/error_band.h"
#include "planning/plan_algorithms.h"
#include "planning/plan_inputs_json.h"
#include "planning/six_digits.h"
#include "timing/model_timers.h"

namespace topotune::tune {
namespace {

using nlohmann::ordered_json;

// Plan figures at six significant digits (six_digits.h).
double r6(double x) { return six_digits(x); }

ordered_json timeline_json(const sim::StepResult& s) {
  ordered_json out = ordered_json::array();
  for (const sim::BucketEvent& b : s.buckets) {
    out.push_back({{"bytes", b.bytes.value},
                   {"tensors", b.tensors},
                   {"ready_s", r6(b.ready.value)},
                   {"start_s", r6(b.start.value)},
                   {"end_s", r6(b.end.value)}});
  }
  return out;
}

ordered_json frameworks_json(const AlgorithmChoice& a) {
  ordered_json out = ordered_json::array();
  for (Framework f : frameworks_running(a)) out.push_back(framework_name(f));
  return out;
}

ordered_json candidate_json(const Candidate& c, const ClusterBands& bands) {
  ordered_json j;
  j["algorithm"] = c.algo.name();
  j["frameworks"] = frameworks_json(c.algo);
  j["framework"] = framework_name(c.framework);
  j["bucket_bytes"] = c.bucket_cap.value;
  if (c.framework == Framework::Ddp) j["first_bucket_bytes"] = c.first_bucket.value;
  if (c.framework == Framework::Horovod) j["cycle_time_s"] = r6(c.cycle_time.value);
  j["comm_dtype"] = sched::dtype_name(c.dtype);
  j["step_time_s"] = r6(c.step.step.value);
  j["exposed_comm_s"] = r6(c.step.exposed_comm.value);
  j["forward_s"] = r6(c.step.forward.value);
  j["backward_s"] = r6(c.step.backward.value);
  j["allreduce_s"] = r6(c.allreduce_all.value);
  j["busbw_GBps"] = r6(c.busbw / 1e9);
  j["buckets"] = c.step.buckets.size();
  j["error_band_s"] = r6(error_band(c, bands).value);
  j["band_source"] = band_source(c, bands);
  j["timer"] = c.timer;
  j["model"] = c.model;
  // A /chN row overrides NCCL's channel count; every row's channels hold SMs (tuner.h).
  j["channel_override"] = c.algo.channels > 0 ? ordered_json(c.algo.channels) : nullptr;
  j["sm_charge"] = c.channels_charged > 0 ? ordered_json{{"channels", c.channels_charged},
                                                         {"backward_scale", r6(c.backward_scale)}}
                                          : ordered_json(nullptr);
  return j;
}

// The compute figures as the plan used them; read back by plan_replay.cc's read_compute.
ordered_json compute_json(const ComputeParams& c) {
  ordered_json j = {{"batch_per_gpu", c.batch_per_gpu},
                    {"batch_source", c.batch_source},
                    {"peak_flops", c.peak_flops},
                    {"efficiency", c.efficiency}};
  if (c.precision) j["precision"] = precision_name(*c.precision);
  if (c.flops_timing) j["timing"] = "flops";
  return j;
}

ordered_json shape_json(const ClusterShape& s) {
  return {{"instance", s.instance},
          {"gpu_model", s.gpu_model},
          {"hosts", s.hosts},
          {"gpus_per_host", s.gpus_per_host},
          {"intra_bw_Bps", s.intra_bw.value},
          {"host_net_bw_Bps", s.host_net_bw.value},
          {"cpu_reduce_bw_Bps", s.cpu_reduce_bw.value},
          {"intra_latency_s", s.intra_latency.value},
          {"net_latency_s", s.net_latency.value},
          {"op_latency_s", s.op_latency.value},
          {"peak_flops", s.peak_flops},
          {"nvswitch", s.nvswitch}};
}

}  // namespace

nlohmann::ordered_json plan_inputs_json(const PlanInputs& in, const ClusterShape& shape) {
  ordered_json dtypes = ordered_json::array();
  for (sched::DataType d : in.dtypes) dtypes.push_back(sched::dtype_name(d));
  ordered_json j;
  j["cluster_spec"] = ordered_json::parse(in.cluster_record);
  j["timer"] = kTimerClosedForm;
  j["simulate"] = in.simulate;
  j["cluster_shape"] = shape_json(shape);
  j["compute"] = compute_json(in.compute);
  j["dtypes"] = dtypes;
  if (in.backend != PlanBackend::Nccl) j["backend"] = plan_backend_name(in.backend);
  j["framework"] = framework_name(in.framework);
  // "latest": the newest release the replaying binary models, as the plan itself assumed.
  j["nccl_version"] = in.nccl_version.known ? in.nccl_version.str() : "latest";
  if (!in.algorithm_kinds.empty()) {
    ordered_json kinds = ordered_json::array();
    for (AlgoKind k : in.algorithm_kinds) kinds.push_back(plan_algorithm_entry(in, k));
    j["algorithms"] = kinds;
  }
  if (const std::vector<std::string> keep = plan_keep_names(in.keep); !keep.empty()) {
    j["keep"] = keep;
  }
  if (!in.bucket_caps.empty()) {
    ordered_json caps = ordered_json::array();
    for (Bytes b : in.bucket_caps) caps.push_back(b.value);
    j["bucket_caps"] = caps;
  }
  j["calibration"] = in.calibration_record.empty() ? ordered_json(nullptr)
                                                   : ordered_json::parse(in.calibration_record);
  j["nccl_params"] = ordered_json::parse(
      algo::params_to_json(in.nccl_params, "NCCL predictor parameters of this plan"));
  // The profile is a dump of nlohmann::json (keys sorted) whose top level may hold any number
  // of keys the schema ignores: ordered_json would parse it in time quadratic in them.
  j["model_profile"] = ordered_json(nlohmann::json::parse(in.model.json));
  return j;
}

namespace {

std::string mib(Bytes b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g MiB", b.as_double() / (1 << 20));
  return buf;
}

std::string ms(Seconds s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g ms", s.value * 1e3);
  return buf;
}

std::string ratio(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", x);
  return buf;
}

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", x * 100);
  return buf;
}

// What the defaults are, in words, for the sentence.
std::string defaults_words(const PlanInputs& in) {
  switch (in.framework) {
    case Framework::Horovod:
      return "Horovod's defaults (fusion 128 MiB, cycle 1 ms, fp32)";
    case Framework::Smddp:
      return "SMDDP's defaults";
    case Framework::Ddp:
    case Framework::Topotune:
    case Framework::Fsdp:  // refused by check_backend_and_framework
      break;
  }
  return "DDP's defaults (NCCL's own choice, 25 MiB buckets, fp32)";
}

}  // namespace

std::string cluster_spec_json(const topo::ClusterSpec& spec, const std::string& instance_json,
                              const std::string& overrides_json) {
  ordered_json j;
  j["schema"] = topo::kClusterSchema;
  j["instance"] = ordered_json::parse(instance_json);
  if (!overrides_json.empty()) j["overrides"] = ordered_json::parse(overrides_json);
  j["nodes"] = spec.hosts;
  j["placement"] = topo::placement_name(spec.placement);
  ordered_json fabric = {{"oversubscription", spec.fabric.oversubscription}};
  if (spec.fabric.hosts_per_rack > 0) fabric["hosts_per_rack"] = spec.fabric.hosts_per_rack;
  // With racks, say whether they are rail-optimised (0 too: large clusters default to it).
  if (spec.fabric.hosts_per_rack > 0) fabric["rails_per_leaf"] = spec.fabric.rails_per_leaf;
  // A super-spine tier (large cluster placements default to one): pods and their uplinks.
  if (spec.fabric.racks_per_pod > 0) {
    fabric["racks_per_pod"] = spec.fabric.racks_per_pod;
    fabric["pod_oversubscription"] = spec.fabric.pod_oversubscription;
    if (spec.fabric.superspine_latency)
      fabric["superspine_latency_us"] = spec.fabric.superspine_latency->value * 1e6;
  }
  j["fabric"] = fabric;
  ordered_json links = ordered_json::object();
  for (int k = 0; k < topo::kNumLinkKinds; ++k) {
    const topo::LinkClassParams& p = spec.link_params[static_cast<std::size_t>(k)];
    links[topo::link_kind_name(static_cast<topo::LinkKind>(k))] = {
        {"latency_us", p.latency.value * 1e6}, {"efficiency", p.efficiency}};
  }
  j["link_params"] = links;
  return j.dump();
}

namespace {
constexpr auto kBackendNames =
    enum_names<PlanBackend>({{PlanBackend::Nccl, "nccl"}, {PlanBackend::Mpi, "mpi"}});
}  // namespace

const char* plan_backend_name(PlanBackend b) { return kBackendNames.name_of(b); }

Expected<PlanBackend> parse_plan_backend(const std::string& name) {
  if (const std::optional<PlanBackend> b = kBackendNames.find(name)) return *b;
  // Worded before the shared "known: ..." message; tests and scripts match it.
  return fail(Errc::InvalidArgument,
              "unknown backend '" + name + "' (" + kBackendNames.names_text() + ")");
}

Expected<void> set_plan_cluster(PlanInputs& inputs, const topo::ClusterSpec& spec,
                                const std::string& instance_json,
                                const std::string& overrides_json) {
  return set_plan_cluster_record(inputs, cluster_spec_json(spec, instance_json, overrides_json));
}

Expected<void> set_plan_cluster_record(PlanInputs& inputs, const std::string& document) {
  TT_TRY(inputs.cluster, topo::parse_cluster_json(document, "cluster"));
  inputs.cluster_record = document;
  return {};
}

Expected<void> set_plan_calibration(PlanInputs& inputs, const std::string& text,
                                    const std::string& origin) {
  TT_TRY(inputs.nccl_params, algo::params_from_json(text, origin, algo::default_params()));
  inputs.calibration_record = text;
  return {};
}

namespace {

// What NCCL runs for each bucket of `c`, consecutive buckets with the same answer merged.
Expected<std::vector<NcclBucketRule>> nccl_rules(const Candidate& c, const NcclTimer& timer) {
  std::vector<std::int64_t> sizes;
  for (const sim::BucketEvent& b : c.step.buckets) sizes.push_back(b.bytes.value);
  std::sort(sizes.begin(), sizes.end());
  std::vector<NcclBucketRule> rules;
  for (std::int64_t bytes : sizes) {
    TT_TRY(const algo::NcclCandidate n, timer.chosen(c.algo, Bytes(bytes)));
    NcclBucketRule r{bytes, bytes, algo::nccl_algo_name(n.algo), algo::nccl_proto_name(n.proto),
                     n.channels};
    if (!rules.empty() && rules.back().algo == r.algo && rules.back().proto == r.proto &&
        rules.back().channels == r.channels) {
      rules.back().max_bytes = bytes;
    } else {
      rules.push_back(std::move(r));
    }
  }
  return rules;
}

// The gradient dtypes: bf16 only where the GPU computes it natively, fp16 otherwise.
Expected<void> dtypes_for_hardware(PlanInputs& in, const topo::GpuSpec& gpu) {
  TT_TRY_VOID(plan_keep_dtypes(in.keep, in.dtypes));  // --keep numerics: fp32 only
  if (in.dtypes.empty()) {
    in.dtypes = {sched::DataType::F32,
                 gpu.bf16_native ? sched::DataType::BF16 : sched::DataType::F16};
  }
  const auto bf16 = std::find(in.dtypes.begin(), in.dtypes.end(), sched::DataType::BF16);
  if (bf16 != in.dtypes.end() && !gpu.bf16_native) {
    return fail(Errc::InvalidArgument,
                "bf16 gradients need a GPU that computes bf16 natively "
                "(Ampere or later); " +
                    gpu.model + " (" + topo::arch_name(gpu.arch) + ") does not: use fp16");
  }
  return {};
}

// The framework can run on the backend (and on this instance).
Expected<void> check_backend_and_framework(const PlanInputs& in, const PlanCluster& cluster) {
  if (is_sharded(in.framework)) {
    return fail(Errc::InvalidArgument, std::string(framework_name(in.framework)) +
                                           " plans come from the sharded planner, not this one");
  }
  // Without NCCL every candidate is a topotune schedule: topotune's runtime runs them all,
  // and a DDP job on gloo runs hierarchical(ring) through topotune's comm hook.
  if (in.backend == PlanBackend::Mpi && in.framework != Framework::Topotune &&
      in.framework != Framework::Ddp) {
    return fail(Errc::InvalidArgument,
                "--backend mpi runs topotune's schedules: it needs "
                "--framework topotune or ddp (gloo with topotune's comm "
                "hook), not " +
                    std::string(framework_name(in.framework)));
  }
  if (in.framework == Framework::Smddp && !smddp_supported(cluster.sagemaker_name)) {
    return fail(Errc::InvalidArgument, cluster.instance + " does not run SMDDP (it runs on " +
                                           smddp_instances_text() + ")");
  }
  return {};
}

// What the stages did, for the notes.
// NCCL's algorithms are timed by the NCCL predictor in both stages; the flow simulator's part
// in their times is the fabric probe (fabric_probe.h), whose figures the note gives.
std::string nccl_fabric_note(const FabricProbe& p, const std::string& fabric) {
  return string_printf(
      "rank stage: NCCL's algorithms (nccl:*) are timed by the NCCL predictor in both stages; "
      "the flow simulator enters their times through the fabric probe on the same fabric (%s): "
      "one round of NCCL-like ring, tree and rail traffic against a non-blocking segment gives "
      "ring share %.3f, tree share %.3f, %.2f us more per crossing between nodes",
      fabric.c_str(), p.ring_share, p.tree_share, p.extra_crossing_latency.us());
}

void add_stage_notes(TuneReport& report, bool nccl, const std::string& rank_note,
                     const SimulatorTimer* rank, const FabricProbe& probe) {
  if (!nccl) {
    report.notes.push_back(
        "backend mpi: every candidate is a topotune schedule (ring and dbtree "
        "too); the baselines' NCCL defaults stand for the better of topotune's "
        "ring and dbtree (closed forms), as no NCCL runs here");
  }
  if (!rank_note.empty()) report.notes.push_back(rank_note);
  if (!rank) return;
  std::vector<std::string> done = rank->summary();
  if (done.empty()) {
    done.push_back(nccl ? "rank stage: the top candidates are NCCL's own algorithms, timed by "
                          "the NCCL predictor in both stages: nothing to simulate"
                        : "rank stage: nothing simulated (the candidates it would rank are "
                          "refused above)");
  }
  for (std::string& n : done) report.notes.push_back(std::move(n));
  // What the simulator does for NCCL's own algorithms: not their schedules, the fabric probe.
  if (nccl) report.notes.push_back(nccl_fabric_note(probe, rank->fabric()));
}

// The algorithm axis. NCCL's backend searches NCCL's algorithms and topotune's other
// schedules by default; topotune's own ring and dbtree only when asked (--algos): NCCL runs its
// ring and tree over every rail, topotune's over one. Without NCCL, topotune's schedules only.
Expected<std::vector<AlgorithmChoice>> search_space(const PlanInputs& inputs, int hosts) {
  const bool nccl = inputs.backend == PlanBackend::Nccl;
  const auto& kinds = inputs.algorithm_kinds;
  for (AlgoKind k : kinds) {
    if (!nccl && algo::family_of(k).nccl) {
      return fail(Errc::InvalidArgument,
                  std::string(algo_kind_name(k)) + " needs the nccl backend");
    }
  }
  std::vector<AlgorithmChoice> out;
  for (const AlgorithmChoice& a : default_algorithms(hosts)) {
    const bool wanted = !kinds.empty()
                            ? std::find(kinds.begin(), kinds.end(), a.kind) != kinds.end()
                        : nccl ? algo::family_of(a.kind).search != algo::PlannerSearch::WithoutNccl
                               : !a.is_nccl();
    if (wanted) out.push_back(a);
  }
  if (out.empty()) {
    return fail(Errc::Unsupported, "no algorithm of the requested families applies to " +
                                       std::to_string(hosts) + " hosts");
  }
  return out;
}

// The recommendation for the plan's framework: the tuner's pick among what it runs (DDP, or
// Horovod's sweep), kept only if it beats the framework's defaults by the margin; else the
// defaults themselves (not with --backend mpi, which has none). SMDDP's algorithm is not
// modelled: its defaults.
void choose_for_framework(Plan& plan) {
  TuneReport& r = plan.report;
  const Framework f = plan.inputs.framework;
  const Candidate& defaults = f == Framework::Horovod ? r.baseline_horovod : r.baseline_ddp;
  Candidate pick = f == Framework::Horovod ? r.horovod_best : r.recommendation;
  const bool runs = framework_runs(f, pick.algo);
  const bool beats = beats_beyond_band(pick, defaults, kDefaultDtypeMargin, plan.bands);
  // Without NCCL (--backend mpi) there are no framework defaults to keep: the baselines'
  // "NCCL defaults" only stand for topotune's ring/tree there.
  const bool no_defaults = plan.inputs.backend == PlanBackend::Mpi;
  plan.keeps_defaults = f == Framework::Smddp || !runs || (!beats && !no_defaults);
  // Not `keeps ? defaults : std::move(pick)`: the conditional is a const lvalue, which copies.
  if (plan.keeps_defaults) {
    // The best change, when there is one: a pick equal to the defaults changes nothing.
    if (runs && f != Framework::Smddp && !same_configuration(pick, defaults)) {
      plan.declined = pick;
    }
    r.recommendation = defaults;
  } else {
    r.recommendation = std::move(pick);
  }
}

}  // namespace

namespace {

// Step 1: what the plan reads off the cluster, and the inputs it fills in (the dtypes the GPU
// supports, its peak FLOP/s); then whether the framework runs on the backend.
Expected<Plan> start_plan(PlanInputs inputs) {
  Plan plan;
  const topo::ClusterSpec& spec = inputs.cluster;
  plan.cluster.instance = spec.instance.name;
  plan.cluster.sagemaker_name = spec.instance.sagemaker_name.value_or("");
  plan.cluster.nodes = spec.hosts;
  plan.cluster.placement = topo::placement_name(spec.placement);
  TT_TRY(plan.cluster.shape, cluster_shape(spec));
  TT_TRY_VOID(dtypes_for_hardware(inputs, spec.instance.gpu));
  TT_TRY_VOID(resolve_compute(inputs.compute, inputs.model, spec.instance.gpu));
  TT_TRY_VOID(check_backend_and_framework(inputs, plan.cluster));
  plan.bands = ClusterBands(spec, inputs.nccl_version,
                            inputs.error_bands ? *inputs.error_bands : ErrorBandTable::builtin());
  plan.inputs = std::move(inputs);
  plan.version = kVersion;
  return plan;
}

// Step 2: the search (algorithms x channels x dtypes x buckets) and who may win it.
Expected<TuneRequest> tune_request(const Plan& plan, const NcclTimer& screen) {
  const PlanInputs& in = plan.inputs;
  TuneRequest req;
  req.model = &in.model;
  req.compute = in.compute;
  req.hosts = plan.cluster.shape.hosts;
  req.gpus_per_host = plan.cluster.shape.gpus_per_host;
  req.dtypes = in.dtypes;
  req.bucket_caps = in.bucket_caps;
  // --algos without /chN: each family at its library's own channel count only.
  if (in.algorithm_kinds.empty() || !in.channel_kinds.empty()) {
    req.channel_counts = default_channel_counts(screen.max_channels());
    req.channel_kinds = in.channel_kinds;
  }
  TT_TRY(req.algorithms, search_space(in, req.hosts));
  if (in.keep.nccl) {  // no pin of NCCL's algorithm, for DDP's sweep and Horovod's alike
    std::erase_if(req.algorithms, [](const AlgorithmChoice& a) { return needs_tuner_rules(a); });
    if (req.algorithms.empty()) {
      return fail(Errc::InvalidArgument,
                  "--keep nccl leaves none of the searched algorithms (--algos): each needs an "
                  "NCCL setting");
    }
  }
  // The SMs channels take (tuner.h): NCCL's own count at DDP's default bucket for rows
  // without an override. Without NCCL (backend mpi) no collective runs on the GPU's SMs.
  if (in.backend == PlanBackend::Nccl && in.cluster.instance.gpu.sm_count) {
    req.gpu_sms = *in.cluster.instance.gpu.sm_count;
    TT_TRY(const algo::NcclCandidate own, screen.chosen({AlgoKind::NcclDefault}, 25_MiB));
    req.default_channels = own.channels;
  }
  const Framework framework = in.framework;
  if (framework != Framework::Smddp) {
    req.eligible = [framework, keep = in.keep](const Candidate& c) {
      return framework_runs(framework, c.algo) && keep_allows(keep, framework, c.algo);
    };
  }
  return req;
}

// Step 3: the rank stage's timer (the flow simulator), or why there is none.
struct RankStage {
  std::unique_ptr<SimulatorTimer> timer;
  std::string note;  ///< why the stage was skipped
};

RankStage rank_stage(const Plan& plan, const ModelTimers& timers) {
  RankStage stage;
  if (!plan.inputs.simulate) return stage;
  const bool nccl = plan.inputs.backend == PlanBackend::Nccl;
  auto made = timers.simulator(gradient_bytes(plan.inputs.model, sched::DataType::F32), {}, nccl);
  if (made) {
    stage.timer = std::move(*made);
  } else {
    stage.note = "rank stage (flow simulator) skipped: " + made.error().message;
  }
  return stage;
}

// What the SM charge did (tuner.h), and that a recommended channel override is unvalidated.
void add_channel_notes(Plan& plan, const TuneRequest& req) {
  std::vector<std::string>& notes = plan.report.notes;
  if (plan.inputs.backend == PlanBackend::Nccl && req.gpu_sms > 0) {
    notes.push_back(string_printf(
        "SMs: NCCL runs one thread block per channel (NVIDIA/nccl src/enqueue.cc, "
        "ncclLaunchKernel: grid = nChannels blocks), so every row's backward compute is scaled "
        "by %d / (%d - channels), channels its /chN override or else NCCL's own count (%d at "
        "25 MiB): an upper bound, as if its collectives ran through the whole backward pass",
        req.gpu_sms, req.gpu_sms, req.default_channels));
  } else if (plan.inputs.backend == PlanBackend::Nccl) {
    notes.push_back("SMs: the catalog does not know " + plan.inputs.cluster.instance.gpu.model +
                    "'s SM count (gpu.sm_count): no row is charged for the SMs its NCCL "
                    "channels take from backward compute");
  }
  const Candidate& c = plan.report.recommendation;
  if (!plan.keeps_defaults && c.algo.channels > 0) {
    notes.push_back(string_printf(
        "channels: %d overrides NCCL's own channel count and is unvalidated (no calibration log "
        "in data/validation ran a channel override); recommended because it beats NCCL's own "
        "count by more than the model's %.1f %% error",
        c.algo.channels, kChannelOverrideMargin * 100));
  }
}

}  // namespace

namespace {

// make_plan at the inputs' own peak (or the GPU's).
Expected<Plan> plan_at_peak(PlanInputs inputs) {
  TT_TRY(Plan plan, start_plan(std::move(inputs)));
  // One model of time: every candidate on the same topology and parameters.
  const bool nccl = plan.inputs.backend == PlanBackend::Nccl;
  TT_TRY(const std::unique_ptr<ModelTimers> timers,
         ModelTimers::create(plan.inputs.cluster, plan.inputs.nccl_params, nccl,
                             plan.inputs.nccl_version));
  const NcclTimer& screen = timers->screen();
  const CollectiveTimer& screen_timer =
      nccl ? static_cast<const CollectiveTimer&>(screen) : timers->closed_form();
  TT_TRY(const TuneRequest req, tune_request(plan, screen));
  const RankStage rank = rank_stage(plan, *timers);
  // Step 4: screen, rank, and the framework's recommendation.
  TT_TRY(plan.report, tune(req, screen_timer, rank.timer.get()));
  add_stage_notes(plan.report, nccl, rank.note, rank.timer.get(), timers->fabric());
  if (plan.bands.uncalibrated()) plan.report.notes.push_back(plan.bands.warning());
  choose_for_framework(plan);
  if (!plan.keeps_defaults && plan.report.recommendation.framework == Framework::Ddp) {
    const CollectiveTimer& final_timer =
        rank.timer ? static_cast<const CollectiveTimer&>(*rank.timer) : screen_timer;
    TT_TRY(plan.attribution, attribute_ddp_gain(req, final_timer, plan.report.recommendation,
                                                plan.report.baseline_ddp));
  }
  add_channel_notes(plan, req);
  const topo::GpuSpec& gpu = plan.inputs.cluster.instance.gpu;
  plan.memory =
      replica_memory(plan.inputs.model, plan.inputs.compute.batch_per_gpu, memory_to_check(gpu));
  if (const std::string words = published_memory_words(gpu); !words.empty()) {
    plan.report.notes.push_back(words);
  }
  plan.report.notes.push_back("memory: " + replica_memory_words(plan.memory));
  // Step 5: what NCCL runs for the buckets of the NCCL candidate the emitted files configure.
  if (nccl) {
    const Candidate& r = plan.report.recommendation;
    TT_TRY(
        plan.nccl_rules,
        nccl_rules(r.algo.is_nccl() && r.framework == Framework::Ddp ? r : plan.report.baseline_ddp,
                   screen));
  }
  return plan;
}

// What the recommendation gains over the framework's defaults, as a share of their step.
double relative_gain(const Plan& plan) {
  const double defaults = framework_defaults(plan).step.step.value;
  return (defaults - plan.report.recommendation.step.step.value) / defaults;
}

// The advice at both ends of the published peaks: the same configuration (or the defaults at
// both) gives the plan whose recommendation gains less; different advice is the user's call.
Expected<Plan> plan_over_peak_range(PlanInputs inputs, const topo::PublishedRange& range) {
  const ComputeParams given = inputs.compute;
  PlanInputs high_inputs = inputs;
  inputs.compute.peak_flops = range.low;
  high_inputs.compute.peak_flops = range.high;
  TT_TRY(Plan low, plan_at_peak(std::move(inputs)));
  TT_TRY(Plan high, plan_at_peak(std::move(high_inputs)));
  const bool same = low.keeps_defaults == high.keeps_defaults &&
                    same_configuration(low.report.recommendation, high.report.recommendation);
  if (!same) {
    return peak_dependent_advice(low.inputs.cluster.instance.gpu.model, range,
                                 recommendation_sentence(low), recommendation_sentence(high));
  }
  const bool low_claims_less = relative_gain(low) <= relative_gain(high);
  Plan& used = low_claims_less ? low : high;
  const Plan& other = low_claims_less ? high : low;
  used.peak_bracket = PeakBracket{range,
                                  used.inputs.compute.peak_flops,
                                  other.inputs.compute.peak_flops,
                                  other.report.recommendation.step.step,
                                  framework_defaults(other).step.step,
                                  given};
  const PeakBracket& b = *used.peak_bracket;
  used.report.notes.push_back(
      peak_bracket_note(used.inputs.cluster.instance.gpu.model, range, b.used_flops, b.other_flops,
                        string_printf("step %.3g ms, defaults %.3g ms", b.other_step.value * 1e3,
                                      b.other_defaults_step.value * 1e3)));
  return std::move(used);
}

}  // namespace

Expected<Plan> make_plan(PlanInputs inputs) {
  const std::optional<topo::PublishedRange> range =
      peak_to_bracket(inputs.compute, inputs.model, inputs.cluster.instance.gpu);
  if (range) return plan_over_peak_range(std::move(inputs), *range);
  return plan_at_peak(std::move(inputs));
}

const Candidate& framework_defaults(const Plan& plan) {
  return plan.inputs.framework == Framework::Horovod ? plan.report.baseline_horovod
                                                     : plan.report.baseline_ddp;
}

bool same_configuration(const Candidate& a, const Candidate& b) {
  return a.algo == b.algo && a.dtype == b.dtype && a.bucket_cap == b.bucket_cap &&
         a.first_bucket == b.first_bucket && a.framework == b.framework &&
         a.cycle_time == b.cycle_time;
}

std::vector<const Candidate*> listed_candidates(const Plan& plan, int max) {
  const Candidate& rec = plan.report.recommendation;
  std::vector<const Candidate*> out = {&rec};
  for (const Candidate& c : plan.report.candidates) {
    if (static_cast<int>(out.size()) >= max) break;
    if (!same_configuration(c, rec)) out.push_back(&c);
  }
  return out;
}

std::string nccl_version_words(const algo::NcclVersion& v) {
  const std::string name = algo::nccl_release_name(v.code());
  return v.known ? name : name + " (the latest modeled release)";
}

// What `p` changes from `d`, in words: "first bucket 25 MiB", "64 MiB buckets, bf16, nccl:ring".
std::string change_words(const Candidate& p, const Candidate& d) {
  std::vector<std::string> words;
  if (p.bucket_cap != d.bucket_cap) {
    words.push_back((p.framework == Framework::Horovod ? "fusion " : "") + mib(p.bucket_cap) +
                    (p.framework == Framework::Horovod ? "" : " buckets"));
  } else if (p.first_bucket != d.first_bucket) {
    words.push_back("first bucket " + mib(p.first_bucket));
  }
  if (p.cycle_time != d.cycle_time) words.push_back("cycle " + ms(p.cycle_time));
  if (p.dtype != d.dtype) words.push_back(sched::dtype_name(p.dtype));
  if (!(p.algo == d.algo)) words.push_back(p.algo.name());
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

namespace {

// The advice alone; recommendation_sentence adds what --keep kept and the memory warning.
std::string advice_sentence(const Plan& plan) {
  const TuneReport& r = plan.report;
  const Candidate& c = r.recommendation;
  const Candidate& d = framework_defaults(plan);
  const std::string fw = framework_name(plan.inputs.framework);
  if (plan.inputs.framework == Framework::Smddp) {
    return "Keep SMDDP's defaults: topotune does not model SMDDP's own AllReduce, so no "
           "candidate is timed as SMDDP runs it (the rows are NCCL's and topotune's).";
  }
  if (plan.keeps_defaults && plan.declined) {
    const Candidate& p = *plan.declined;
    const Seconds gain(d.step.step.value - p.step.step.value);
    const Seconds band(error_band(d, plan.bands).value + error_band(p, plan.bands).value);
    return "Keep " + defaults_words(plan.inputs) + ": predicted step " + ms(d.step.step) +
           "; the best change " + fw + " runs (" + change_words(p, d) + ": " + ms(p.step.step) +
           ") gains " + ms(gain) + ", not more than " + percent(kDefaultDtypeMargin).substr(1) +
           " of the step and the model's error band of the two steps (" + ms(band) +
           ": each bucket's collective time times the held-out median error of this kind of "
           "cluster at its size); the emitted files change nothing.";
  }
  if (plan.keeps_defaults) {
    return "Keep " + defaults_words(plan.inputs) + ": predicted step " + ms(d.step.step) +
           "; nothing " + fw + " runs is predicted to beat them by more than " +
           percent(kDefaultDtypeMargin).substr(1) + " (the emitted files change nothing).";
  }
  const double gain = d.step.step.value / c.step.step.value;
  const std::string how = how_framework_runs(plan.inputs.framework, c.algo);
  const std::string knobs = c.framework == Framework::Horovod
                                ? "fusion " + mib(c.bucket_cap) + ", cycle " + ms(c.cycle_time)
                                : mib(c.bucket_cap) + " buckets";
  const Seconds band(error_band(d, plan.bands).value + error_band(c, plan.bands).value);
  const std::string unvalidated =
      c.algo.channels > 0 ? " The channel count is an unvalidated override: no calibration log "
                            "ran one."
                          : "";
  return "Use " + c.algo.name() + " (" + fw + ": " + how + ") with " + knobs + " and " +
         sched::dtype_name(c.dtype) + " gradients: predicted step " + ms(c.step.step) + " (" +
         ms(c.step.exposed_comm) + " exposed communication), " + ratio(gain) + " (" +
         percent(gain - 1) + ") vs " + defaults_words(plan.inputs) + ", beyond the model's " +
         "error band of the two steps (" + ms(band) + ")." + unvalidated;
}

}  // namespace

std::string recommendation_sentence(const Plan& plan) {
  const std::string advice = advice_sentence(plan) + keep_sentence(plan.inputs.keep);
  if (plan.memory.fits) return advice;
  return "Warning: this model does not fit one GPU with plain DDP (" +
         replica_memory_words(plan.memory) + "); the timings below assume it does. " + advice;
}

std::string plan_to_json(const Plan& plan, int max_candidates) {
  const TuneReport& r = plan.report;
  const Candidate& c = r.recommendation;
  ordered_json j;
  j["schema"] = "topotune.plan/1";
  j["version"] = plan.version;
  j["instance"] = plan.cluster.instance;
  j["nodes"] = plan.cluster.nodes;
  j["model"] = plan.inputs.model.name;
  j["framework"] = framework_name(plan.inputs.framework);
  ordered_json rec = candidate_json(c, plan.bands);
  rec["keeps_defaults"] = plan.keeps_defaults;
  rec["speedup_vs_ddp_defaults"] = r6(r.baseline_ddp.step.step.value / c.step.step.value);
  rec["speedup_vs_horovod_defaults"] = r6(r.baseline_horovod.step.step.value / c.step.step.value);
  rec["sentence"] = recommendation_sentence(plan);
  // What each change buys alone against DDP's defaults (baselines[0]).
  ordered_json alone = ordered_json::array();
  for (const GainStep& g : plan.attribution) {
    alone.push_back({{"change", g.change},
                     {"step_time_s", r6(g.alone.step.step.value)},
                     {"speedup_vs_ddp_defaults",
                      r6(r.baseline_ddp.step.step.value / g.alone.step.step.value)}});
  }
  rec["each_change_alone"] = alone;
  j["recommendation"] = rec;
  if (const std::optional<PeakBracket>& b = plan.peak_bracket) {
    // The advice held at both ends of the published peaks; the times are at used_tflops.
    j["peak_bracket"] = {{"low_tflops", r6(b->range.low / 1e12)},
                         {"high_tflops", r6(b->range.high / 1e12)},
                         {"used_tflops", r6(b->used_flops / 1e12)},
                         {"other_tflops", r6(b->other_flops / 1e12)},
                         {"other_step_time_s", r6(b->other_step.value)},
                         {"other_defaults_step_time_s", r6(b->other_defaults_step.value)}};
  }
  ordered_json a = candidate_json(r.baseline_ddp, plan.bands);
  a["name"] = "nccl-defaults+ddp-25MiB";
  ordered_json b = candidate_json(r.baseline_horovod, plan.bands);
  b["name"] = "horovod-defaults";
  j["baselines"] = {a, b};
  j["horovod"] = candidate_json(r.horovod_best, plan.bands);
  ordered_json rules = ordered_json::array();
  for (const NcclBucketRule& n : plan.nccl_rules) {
    rules.push_back({{"min_bytes", n.min_bytes},
                     {"max_bytes", n.max_bytes},
                     {"algo", n.algo},
                     {"proto", n.proto},
                     {"channels", n.channels}});
  }
  const bool rec_nccl = c.algo.is_nccl() && c.framework == Framework::Ddp;
  j["nccl"] = {{"version", nccl_version_words(plan.inputs.nccl_version)},
               {"algorithm", (rec_nccl ? c : r.baseline_ddp).algo.name()},
               {"buckets", rules}};
  ordered_json cands = ordered_json::array();
  const std::vector<const Candidate*> listed = listed_candidates(plan, max_candidates);
  for (std::size_t i = 0; i < listed.size(); ++i) {
    ordered_json x = candidate_json(*listed[i], plan.bands);
    x["rank"] = i + 1;
    cands.push_back(x);
  }
  j["candidates"] = cands;
  j["candidates_evaluated"] = r.evaluated;
  j["timeline"] = timeline_json(c.step);
  j["timers"] = {{"screen", r.screen_timer}, {"rank", r.rank_timer}};
  j["memory"] = {{"model_states_bytes", plan.memory.model_states.value},
                 {"activations_bytes", plan.memory.activations_counted
                                           ? nlohmann::json(plan.memory.activations.value)
                                           : nlohmann::json(nullptr)},
                 {"bytes_per_trainable_param", kAdamBytesPerParam},
                 {"activations", plan.memory.activations_counted
                                     ? "34*s*b*h per layer + 6*s*b*V logits (transformer shape)"
                                     : "not counted"},
                 {"gpu_memory_bytes", plan.memory.gpu_memory.value},
                 {"fits", plan.memory.fits}};
  j["notes"] = r.notes;
  if (plan.replay_note) j["replay_note"] = *plan.replay_note;
  j["inputs"] = plan_inputs_json(plan.inputs, plan.cluster.shape);
  // A bracketed plan records its compute as given: its replay brackets again.
  if (plan.peak_bracket) j["inputs"]["compute"] = compute_json(plan.peak_bracket->given);
  return j.dump(1) + "\n";
}

}  // namespace topotune::tune
