#include "cli/plan_inputs.h"

#include <nlohmann/json.hpp>

#include "cli/nccl_common.h"
#include "core/input_file.h"
#include "core/quantity_parse.h"
#include "planning/plan_algorithms.h"

namespace topotune::cli {
namespace {

Expected<std::string> read_text(const std::string& path, const char* what) {
  return read_input_file(path, what);
}

// --calibration on the cluster's links, from the text read once.
Expected<void> apply_plan_calibration(const PlanArgs& a, const std::string& calibration,
                                      topo::ClusterSpec& spec) {
  if (a.calibration.empty()) return tune::apply_calibration_file("", spec);
  return tune::apply_calibration_text(calibration, a.calibration, spec).context("--calibration");
}

// The cluster, with --calibration's physical parameters on its link classes (the topology side
// of the calibration; the NCCL predictor gets the file through set_plan_calibration), and how
// the plan records it.
Expected<void> set_cluster(const PlanArgs& a, const std::string& calibration,
                           tune::PlanInputs& in) {
  TT_TRY_VOID(check_cluster_flags(a.cluster));  // before reading: nothing is read for nothing
  if (!a.cluster.cluster_file.empty()) {
    // Read once: `--cluster <(cat c.json)` or a FIFO has no second reading.
    TT_TRY(const std::string text, read_text(a.cluster.cluster_file, "cluster file"));
    TT_TRY(topo::ClusterSpec spec, resolve_cluster_text(a.cluster, text));
    TT_TRY_VOID(apply_plan_calibration(a, calibration, spec));
    // Already validated by parse_cluster_json, so these members exist and parse.
    const nlohmann::json doc = nlohmann::json::parse(text);
    return tune::set_plan_cluster(in, spec, doc.at("instance").dump(),
                                  doc.contains("overrides") ? doc["overrides"].dump() : "");
  }
  if (a.cluster.instance.empty()) {
    return fail(Errc::InvalidArgument, "give --instance NAME (or --cluster FILE, --replay PLAN)");
  }
  TT_TRY(topo::ClusterSpec spec, resolve_cluster(a.cluster));
  TT_TRY_VOID(apply_plan_calibration(a, calibration, spec));
  return tune::set_plan_cluster(in, spec, nlohmann::json(spec.instance.name).dump());
}

// The compute figures: the batch (--batch-per-gpu, else the profile's measured batch, else
// 32, recorded with where it came from), the precision, the timing, and what the plan fills
// in (0: the precision's peak, the fitted efficiency).
Expected<void> set_compute(const PlanArgs& a, tune::PlanInputs& in) {
  tune::ComputeParams& c = in.compute;
  if (a.batch_given) {
    c.batch_per_gpu = a.batch;
    c.batch_source = "--batch-per-gpu";
  } else if (in.model.measured_batch) {
    c.batch_per_gpu = *in.model.measured_batch;
    c.batch_source = "profile";
  } else {
    c.batch_per_gpu = tune::kDefaultBatchPerGpu;
    c.batch_source = "default";
  }
  c.efficiency = a.efficiency;
  c.peak_flops = a.peak_tflops > 0 ? a.peak_tflops * 1e12 : 0;  // 0: the GPU's
  if (a.efficiency != 0 && !(a.efficiency >= tune::kMinComputeEfficiency && a.efficiency <= 1)) {
    return fail(Errc::InvalidArgument, "--compute-efficiency must be in [0.001, 1]");
  }
  if (!a.precision.empty()) {
    TT_TRY(c.precision, tune::parse_precision(a.precision).context("--precision"));
  }
  if (a.timing != "auto" && a.timing != "flops") {
    return fail(Errc::InvalidArgument, "--timing must be auto or flops, got '" + a.timing + "'");
  }
  c.flops_timing = a.timing == "flops";
  return {};
}

}  // namespace

Expected<tune::PlanInputs> plan_inputs_from_args(const PlanArgs& a) {
  tune::PlanInputs in;
  std::string calibration;  // --calibration's content, read once before it is used
  if (!a.calibration.empty()) {
    TT_TRY(calibration, read_text(a.calibration, "calibration file").context("--calibration"));
  }
  TT_TRY_VOID(set_cluster(a, calibration, in));  // the link side first: its errors name the file
  if (!a.calibration.empty()) {
    TT_TRY_VOID(tune::set_plan_calibration(in, calibration, "calibration"));
  }
  if (!a.nccl_version.empty()) {
    TT_TRY(in.nccl_version, algo::parse_nccl_version(a.nccl_version).context("--nccl-version"));
  }
  TT_TRY(in.model, tune::load_model_profile(a.model));
  // The rescaled profile is the one the plan records: a replay needs no --seq-len.
  if (a.seq_len != 0) {
    TT_TRY(in.model, tune::at_sequence_length(in.model, a.seq_len));
  }
  TT_TRY_VOID(set_compute(a, in));
  // inf or 1e300 would write a plan its own --replay refuses; 1e-320 would make steps inf.
  if (a.peak_tflops != 0 && !(a.peak_tflops >= tune::kMinPeakFlops / 1e12 &&
                              a.peak_tflops <= tune::kMaxPeakFlops / 1e12)) {
    return fail(Errc::InvalidArgument, "--peak-tflops must be 0 or in [0.001, 100000]");
  }
  TT_TRY_VOID(tune::check_compute(in.compute));
  if (a.dtype != "auto") {
    TT_TRY(sched::DataType d, sched::parse_dtype(a.dtype));
    in.dtypes = {d};
  }
  TT_TRY(in.backend, tune::parse_plan_backend(a.backend));
  in.framework =
      in.backend == tune::PlanBackend::Mpi ? tune::Framework::Topotune : tune::Framework::Ddp;
  if (!a.framework.empty()) {
    TT_TRY(in.framework, tune::parse_framework(a.framework).context("--framework"));
  }
  for (const std::string& list : a.keep) {
    for (const std::string& name : split_comma_list(list)) {
      TT_TRY_VOID(tune::add_plan_keep(in.keep, name).context("--keep"));
    }
  }
  for (const std::string& name : split_comma_list(a.algos)) {
    TT_TRY_VOID(tune::add_plan_algorithm(in, name).context("--algos"));
  }
  if (!a.buckets.empty()) {
    TT_TRY(in.bucket_caps, parse_size_list(a.buckets).context("--buckets"));
    for (Bytes b : in.bucket_caps) {
      if (b.value <= 0) return fail(Errc::InvalidArgument, "--buckets: sizes must be positive");
    }
  }
  TT_TRY_VOID(tune::check_plan_lists(in));
  return in;
}

}  // namespace topotune::cli
