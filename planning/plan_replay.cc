// Reading a stored plan back (`plan --replay`): the plan JSON is input from someone else's
// disk like any other, so it gets the same bounds as the command line that made it (one
// value per dtype and algorithm family, bounded bucket lists, finite compute figures) and
// duplicate keys are refused (docs/limits.md).

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/checked_json.h"
#include "core/json_integer.h"
#include "planning/plan.h"
#include "planning/plan_algorithms.h"

namespace topotune::tune {
namespace {

using nlohmann::ordered_json;

// Keys of one object in a plan (docs/limits.md): its largest, nccl_params.parameters, has 80.
constexpr std::size_t kMaxPlanObjectKeys = 256;

Expected<void> check_array(const ordered_json& v, const char* key, std::size_t max) {
  if (!v.is_array()) return fail(Errc::ParseError, std::string(key) + ": expected an array");
  if (v.size() > max) {
    return fail(Errc::InvalidArgument, std::string(key) + " has " + std::to_string(v.size()) +
                                           " entries, more than the " + std::to_string(max) +
                                           " allowed");
  }
  return {};
}

template <class T>
Expected<void> check_unique(const std::vector<T>& values, const char* key) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    for (std::size_t k = 0; k < i; ++k) {
      if (values[k] == values[i]) {
        return fail(Errc::InvalidArgument, std::string(key) + " lists a value twice");
      }
    }
  }
  return {};
}

Expected<void> read_lists(const ordered_json& in, PlanInputs& out) {
  TT_TRY_VOID(check_array(in.at("dtypes"), "dtypes", kMaxPlanDtypes));
  for (const auto& d : in.at("dtypes")) {
    TT_TRY(sched::DataType dt, sched::parse_dtype(d.get<std::string>()));
    out.dtypes.push_back(dt);
  }
  if (in.contains("algorithms")) {
    TT_TRY_VOID(check_array(in.at("algorithms"), "algorithms", kMaxPlanAlgorithms));
    for (const auto& k : in.at("algorithms")) {
      TT_TRY_VOID(add_plan_algorithm(out, k.get<std::string>()));
    }
  }
  if (in.contains("keep")) {  // plans written before --keep: nothing kept
    TT_TRY_VOID(check_array(in.at("keep"), "keep", 2));
    for (const auto& k : in.at("keep")) {
      TT_TRY_VOID(add_plan_keep(out.keep, k.get<std::string>()));
    }
    if (plan_keep_names(out.keep).size() != in.at("keep").size()) {
      return fail(Errc::InvalidArgument, "keep lists a value twice");
    }
  }
  if (in.contains("bucket_caps")) {
    TT_TRY_VOID(check_array(in.at("bucket_caps"), "bucket_caps", kMaxPlanBuckets));
    for (const auto& b : in.at("bucket_caps")) {
      TT_TRY(const std::int64_t cap, json_integer(b, "bucket_caps", 1, kMaxPlanBucketBytes));
      out.bucket_caps.push_back(Bytes(cap));
    }
  }
  return check_plan_lists(out);
}

// Each figure as the JSON type it must be: `true` or 1.5 is no batch size (docs/limits.md).
Expected<void> read_compute(const ordered_json& cp, ComputeParams& out) {
  TT_TRY(const std::int64_t batch,
         json_integer(cp.at("batch_per_gpu"), "batch_per_gpu", 1, kMaxBatchPerGpu));
  out.batch_per_gpu = static_cast<int>(batch);  // in [1, 2^20]
  TT_TRY(out.peak_flops, json_number(cp.at("peak_flops"), "peak_flops"));
  TT_TRY(out.efficiency, json_number(cp.at("efficiency"), "efficiency"));
  // Plans written before precision and timing were recorded: the GPU's default, measured.
  if (cp.contains("precision")) {
    if (!cp["precision"].is_string()) return fail(Errc::InvalidArgument, "precision: not a string");
    TT_TRY(out.precision, parse_precision(cp["precision"].get<std::string>()));
  }
  if (cp.contains("batch_source") && cp["batch_source"].is_string()) {
    out.batch_source = cp["batch_source"].get<std::string>();
  }
  if (cp.contains("timing")) {
    if (cp["timing"] != "flops") return fail(Errc::InvalidArgument, "timing: only \"flops\"");
    out.flops_timing = true;
  }
  return check_compute(out);
}

Expected<StoredPlan> read_stored(const ordered_json& j, const std::string& origin) {
  const std::string schema = j.is_object() ? j.value("schema", "") : "";
  if (schema != "topotune.plan/1" && schema != "topotune.sharded_plan/1") {
    return fail(Errc::ParseError, origin +
                                      ": not a topotune plan (schema topotune.plan/1 or "
                                      "topotune.sharded_plan/1)");
  }
  StoredPlan s;
  s.sharded = schema == "topotune.sharded_plan/1";
  const ordered_json& in = j.at("inputs");
  TT_TRY_VOID(set_plan_cluster_record(s.inputs, in.at("cluster_spec").dump()));
  const std::string timer = in.at("timer").get<std::string>();
  if (timer != kTimerClosedForm) {
    return fail(Errc::InvalidArgument, "unknown screening timer '" + timer + "' (" +
                                           kTimerClosedForm + "; alpha-beta was removed)");
  }
  s.inputs.simulate = in.at("simulate").get<bool>();
  const ordered_json& cp = in.at("compute");
  TT_TRY_VOID(read_compute(cp, s.inputs.compute).context(origin + ": inputs.compute"));
  s.inputs.dtypes.clear();
  TT_TRY_VOID(read_lists(in, s.inputs).context(origin + ": inputs"));
  TT_TRY(s.inputs.backend, parse_plan_backend(in.value("backend", std::string("nccl"))));
  TT_TRY(s.inputs.framework,
         parse_framework(in.value("framework", std::string(framework_name(Framework::Ddp)))));
  if (in.contains("nccl_version")) {  // plans written before --nccl-version: the latest
    if (!in["nccl_version"].is_string()) {
      return fail(Errc::InvalidArgument, origin + ": inputs.nccl_version must be a string");
    }
    const std::string v = in["nccl_version"].get<std::string>();
    if (v != "latest") {
      TT_TRY(s.inputs.nccl_version,
             algo::parse_nccl_version(v).context(origin + ": inputs.nccl_version"));
    }
  }
  if (!in.at("calibration").is_null()) s.inputs.calibration_record = in["calibration"].dump();
  // The parameters the plan was computed with (its calibration already applied).
  TT_TRY(s.inputs.nccl_params, algo::params_from_json(in.at("nccl_params").dump(),
                                                      "plan nccl_params", algo::default_params()));
  TT_TRY(s.inputs.model,
         parse_model_profile(in.at("model_profile").dump(), origin + " (model_profile)"));
  const ordered_json& rec = j.at("recommendation");
  s.version = j.at("version").get<std::string>();
  if (s.sharded) {
    if (!is_sharded(s.inputs.framework)) {
      return fail(Errc::InvalidArgument, origin +
                                             ": a sharded plan's inputs.framework must be "
                                             "a sharded one");
    }
    s.sharded_row = rec.is_null() ? "" : rec.at("label").get<std::string>();
    return s;
  }
  s.algorithm = rec.at("algorithm").get<std::string>();
  TT_TRY(s.bucket_bytes,
         json_integer(rec.at("bucket_bytes"), "bucket_bytes", 1, kMaxPlanBucketBytes)
             .context(origin + ": recommendation"));
  s.comm_dtype = rec.at("comm_dtype").get<std::string>();
  return s;
}

}  // namespace

Expected<void> check_compute(const ComputeParams& c) {
  if (c.batch_per_gpu < 1 || c.batch_per_gpu > kMaxBatchPerGpu) {
    return fail(Errc::InvalidArgument,
                "batch per GPU must be in [1, " + std::to_string(kMaxBatchPerGpu) + "]");
  }
  // 0 means "the GPU's own figure"; 1e17 FLOP/s is 100 PFLOP/s per GPU, far above any GPU.
  // The lower bounds keep compute times finite: 1e-320 FLOP/s or an efficiency of 1e-320
  // would make every step inf (and NaN in the overlap shares).
  const bool own_peak = c.peak_flops == 0;
  if (!own_peak && !(c.peak_flops >= kMinPeakFlops && c.peak_flops <= kMaxPeakFlops)) {
    return fail(Errc::InvalidArgument, "peak FLOP/s must be 0 or in [1e9, 1e17]");
  }
  // 0: the profile's or its family's fitted efficiency, filled in by the plan.
  if (c.efficiency != 0 && !(c.efficiency >= kMinComputeEfficiency && c.efficiency <= 1)) {
    return fail(Errc::InvalidArgument, "compute efficiency must be in [0.001, 1]");
  }
  return {};
}

Expected<void> check_plan_lists(const PlanInputs& in) {
  TT_TRY_VOID(check_unique(in.dtypes, "dtypes"));
  TT_TRY_VOID(check_unique(in.algorithm_kinds, "algorithms"));
  if (in.bucket_caps.size() > kMaxPlanBuckets) {
    return fail(Errc::InvalidArgument, "at most " + std::to_string(kMaxPlanBuckets) +
                                           " bucket sizes, got " +
                                           std::to_string(in.bucket_caps.size()));
  }
  for (Bytes b : in.bucket_caps) {
    if (b.value <= 0 || b.value > kMaxPlanBucketBytes) {
      return fail(Errc::InvalidArgument,
                  "bucket sizes must be in [1 byte, 1 TiB], got " + std::to_string(b.value));
    }
  }
  return {};
}

Expected<Plan> replay_plan(const StoredPlan& stored) {
  TT_TRY(Plan plan, make_plan(stored.inputs));
  const Candidate& now = plan.report.recommendation;
  if (now.algo.name() != stored.algorithm || now.bucket_cap.value != stored.bucket_bytes ||
      sched::dtype_name(now.dtype) != stored.comm_dtype) {
    plan.replay_note = "topotune " + plan.version + " recommends differently from the stored " +
                       "plan (topotune " + stored.version + ": " + stored.algorithm + ", " +
                       std::to_string(stored.bucket_bytes) + " bytes, " + stored.comm_dtype + ")";
  }
  return plan;
}

Expected<StoredPlan> read_plan_json(const std::string& text, const std::string& origin) {
  // The JSON library throws on malformed text and missing keys; both become errors here.
  try {
    // ordered_json keeps the records' key order (they are replayed verbatim), at a cost
    // quadratic in the keys of one object: bounded well above a plan's largest (80).
    const Expected<ordered_json> j =
        parse_checked_json<ordered_json>(text, {.max_object_keys = kMaxPlanObjectKeys});
    if (!j) return fail(Errc::ParseError, origin + ": " + j.error().message);
    return read_stored(*j, origin);
  } catch (const nlohmann::json::exception& e) {
    return fail(Errc::ParseError, origin + ": " + e.what());
  }
}

}  // namespace topotune::tune
