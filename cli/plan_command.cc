// topotune plan: which allreduce algorithm, DDP bucket size and gradient dtype make a
// data-parallel training step fastest on a cluster, and the configs to run it.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "autotune/emitters.h"
#include "autotune/plan.h"
#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "cli/nccl_common.h"
#include "cli/output_format.h"
#include "cli/plan_table.h"
#include "core/file_output.h"
#include "core/input_file.h"
#include "core/quantity_parse.h"
#include "topology/cluster_spec.h"

namespace topotune::cli {
namespace {

struct PlanArgs {
  ClusterFlags cluster;
  std::string model = tune::kDefaultModel;
  int batch = 32;
  std::string dtype = "auto";
  std::string algos;
  std::string buckets;
  std::string backend = tune::kBackendNccl;
  std::string framework;  ///< empty: topotune with --backend mpi, else ddp
  double efficiency = tune::kDefaultComputeEfficiency;
  double peak_tflops = 0;
  std::string calibration;
  OutputFormat format = OutputFormat::Table;
  std::string emit;
  std::string out;
  std::string replay;
  std::string calibration_text;  ///< --calibration's content, read once before it is used
};

Expected<std::string> read_text(const std::string& path, const char* what) {
  return read_input_file(path, what);
}

// --calibration on the cluster's links, from the text read once (PlanArgs::calibration_text).
Expected<void> apply_plan_calibration(const PlanArgs& a, topo::ClusterSpec& spec) {
  if (a.calibration.empty()) return tune::apply_calibration_file("", spec);
  return tune::apply_calibration_text(a.calibration_text, a.calibration, spec)
      .context("--calibration");
}

// The cluster as a topotune.cluster/1 document, for the plan to embed and replay. Its
// link_params carry --calibration's physical parameters (the topology side of the
// calibration; the NCCL predictor gets the file through PlanInputs::calibration_json).
Expected<std::string> cluster_json(const PlanArgs& a) {
  TT_TRY_VOID(check_cluster_flags(a.cluster));  // before reading: nothing is read for nothing
  if (!a.cluster.cluster_file.empty()) {
    // Read once: `--cluster <(cat c.json)` or a FIFO has no second reading.
    TT_TRY(const std::string text, read_text(a.cluster.cluster_file, "cluster file"));
    TT_TRY(topo::ClusterSpec spec, resolve_cluster_text(a.cluster, text));
    TT_TRY_VOID(apply_plan_calibration(a, spec));
    // Already validated by parse_cluster_json, so these members exist and parse.
    const nlohmann::json doc = nlohmann::json::parse(text);
    return tune::cluster_spec_json(spec, doc.at("instance").dump(),
                                   doc.contains("overrides") ? doc["overrides"].dump() : "");
  }
  if (a.cluster.instance.empty()) {
    return fail(Errc::InvalidArgument, "give --instance NAME (or --cluster FILE, --replay PLAN)");
  }
  TT_TRY(topo::ClusterSpec spec, resolve_cluster(a.cluster));
  TT_TRY_VOID(apply_plan_calibration(a, spec));
  return tune::cluster_spec_json(spec, nlohmann::json(spec.instance.name).dump());
}

Expected<tune::PlanInputs> inputs_from_args(PlanArgs a) {
  tune::PlanInputs in;
  if (!a.calibration.empty()) {
    TT_TRY(a.calibration_text,
           read_text(a.calibration, "calibration file").context("--calibration"));
    in.calibration_json = a.calibration_text;
  }
  TT_TRY(in.cluster_json, cluster_json(a));
  TT_TRY(in.model, tune::load_model_profile(a.model));
  in.compute.batch_per_gpu = a.batch;
  in.compute.efficiency = a.efficiency;
  in.compute.peak_flops = a.peak_tflops > 0 ? a.peak_tflops * 1e12 : 0;  // 0: the GPU's
  if (!(a.efficiency > 0 && a.efficiency <= 1)) {
    return fail(Errc::InvalidArgument, "--compute-efficiency must be in (0, 1]");
  }
  // inf or 1e300 would write a plan its own --replay refuses.
  if (!(a.peak_tflops >= 0 && a.peak_tflops <= tune::kMaxPeakFlops / 1e12)) {
    return fail(Errc::InvalidArgument, "--peak-tflops must be in [0, 100000]");
  }
  TT_TRY_VOID(tune::check_compute(in.compute));
  if (a.dtype != "auto") {
    TT_TRY(sched::DataType d, sched::parse_dtype(a.dtype));
    in.dtypes = {d};
  }
  in.backend = a.backend;
  const std::string framework = !a.framework.empty()             ? a.framework
                                : a.backend == tune::kBackendMpi ? "topotune"
                                                                 : "ddp";
  TT_TRY(in.framework, tune::parse_framework(framework).context("--framework"));
  for (const std::string& name : split_comma_list(a.algos)) {
    TT_TRY(tune::AlgoKind kind, tune::parse_algo_kind(name).context("--algos"));
    in.algorithm_kinds.push_back(kind);
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

// A flag that would be ignored is an error: the user meant something by it.
Expected<void> check_flags(const CLI::App& app) {
  const auto given = [&app](const char* f) { return app.count(f) > 0; };
  if (given("--out") && !given("--emit")) {
    return fail(Errc::InvalidArgument, "--out needs --emit KIND (without it nothing is written)");
  }
  for (const char* f : {"--instance", "--nodes", "--placement", "--cluster", "--model",
                        "--batch-per-gpu", "--dtype", "--algos", "--backend", "--framework",
                        "--compute-efficiency", "--peak-tflops", "--calibration"}) {
    if (given("--replay") && given(f)) {
      return fail(Errc::InvalidArgument, std::string(f) +
                                             " would be ignored with --replay "
                                             "(a replay uses the plan's own inputs)");
    }
  }
  return {};
}

Expected<tune::Plan> compute_plan(const PlanArgs& a) {
  if (a.replay.empty()) {
    TT_TRY(tune::PlanInputs in, inputs_from_args(a));
    return tune::make_plan(std::move(in));
  }
  TT_TRY(const std::string text, read_text(a.replay, "plan"));
  TT_TRY(tune::StoredPlan stored, tune::read_plan_json(text, a.replay));
  TT_TRY(tune::Plan plan, tune::make_plan(stored.inputs));
  const tune::Candidate& now = plan.report.recommendation;
  if (now.algo.name() != stored.algorithm || now.bucket_cap.value != stored.bucket_bytes ||
      sched::dtype_name(now.dtype) != stored.comm_dtype) {
    plan.replay_note = "topotune " + plan.version + " recommends differently from the stored " +
                       "plan (topotune " + stored.version + ": " + stored.algorithm + ", " +
                       std::to_string(stored.bucket_bytes) + " bytes, " + stored.comm_dtype + ")";
  }
  return plan;
}

Expected<void> write_emitted(const tune::Plan& plan, const PlanArgs& a) {
  if (a.out.empty()) return fail(Errc::InvalidArgument, "--emit needs --out DIR");
  TT_TRY(const std::vector<tune::EmittedFile> files, tune::emit(plan, a.emit));
  std::error_code ec;
  if (!std::filesystem::exists(a.out, ec)) std::filesystem::create_directories(a.out, ec);
  if (!std::filesystem::is_directory(a.out, ec)) {
    return fail(Errc::Io, "--out '" + a.out + "' is not a directory");
  }
  std::vector<PendingFile> pending;
  for (const tune::EmittedFile& f : files) {
    const std::filesystem::path target = std::filesystem::path(a.out) / f.name;
    // A directory in the way would fail the rename after earlier files were renamed: refuse
    // before writing anything.
    if (std::filesystem::is_directory(target, ec)) {
      return fail(Errc::Io, "cannot write '" + target.string() + "': it is a directory");
    }
    pending.push_back({target.string(), f.content});
  }
  return write_files_atomically(pending);
}

Expected<void> run_plan(const PlanArgs& a, const CLI::App& app, std::ostream& out) {
  TT_TRY_VOID(check_flags(app));
  if (!a.emit.empty() && !a.out.empty()) {
    // --out is created when missing, then checked like every output target.
    std::error_code ec;
    if (!std::filesystem::exists(a.out, ec)) std::filesystem::create_directories(a.out, ec);
    TT_TRY_VOID(check_output_dir(a.out).context("--out"));
  }
  TT_TRY(tune::Plan plan, compute_plan(a));
  // Files first: a failed write must not be followed by output that looks like success.
  if (!a.emit.empty()) TT_TRY_VOID(write_emitted(plan, a));
  out << (a.format == OutputFormat::Json ? tune::plan_to_json(plan) : plan_table(plan));
  return {};
}

}  // namespace

CommandRun setup_plan(CLI::App& sub) {
  auto a = std::make_shared<PlanArgs>();
  add_cluster_flags(sub, a->cluster);
  sub.add_option("--model", a->model,
                 "built-in model (bert-large, gpt2-xl, maskrcnn-r50-fpn, resnet50, vit-l16) or "
                 "a profile FILE.json (docs/model-profile.md); default bert-large")
      ->capture_default_str();
  sub.add_option("--batch-per-gpu", a->batch, "samples per GPU per step")->capture_default_str();
  sub.add_option("--dtype", a->dtype,
                 "gradient dtype on the wire: fp32, bf16, fp16, or auto (fp32 and bf16 where "
                 "the GPU computes bf16 natively, Ampere and later; fp32 and fp16 on Volta and "
                 "Turing; 16 bits only if > 2 % faster)")
      ->capture_default_str();
  sub.add_option("--algos", a->algos,
                 "search only these algorithm families (comma list of nccl-default, ring, tree, "
                 "rhd, ps, hierarchical), e.g. what your runtime can run; default: all. The "
                 "baselines stay NCCL's defaults");
  sub.add_option("--buckets", a->buckets,
                 "search only these DDP bucket caps (comma list, e.g. 1M,4M,25M), e.g. to "
                 "predict the configurations a measurement ran; default: 1 MiB doubling to the "
                 "whole model, and 25 MiB");
  sub.add_option("--backend", a->backend,
                 "what runs the allreduces: nccl (NCCL's ring/tree/own choice, or topotune's "
                 "runtime for the rest) or mpi (only topotune's schedules, e.g. `topotune "
                 "measure` on a cluster without NCCL: ring and tree are simulated as topotune "
                 "runs them)")
      ->capture_default_str();
  sub.add_option("--framework", a->framework,
                 "what the job runs its allreduces with: ddp (PyTorch DDP on NCCL), horovod, "
                 "smddp (SageMaker's library: its algorithm is not modelled), topotune "
                 "(`topotune measure`). The recommendation is the best candidate it runs with "
                 "the emitted files, or its defaults. Default: ddp (topotune with --backend mpi)");
  sub.add_option("--compute-efficiency", a->efficiency,
                 "achieved share of the GPU's bf16 tensor peak")
      ->capture_default_str();
  sub.add_option("--peak-tflops", a->peak_tflops, "override the GPU's dense bf16 peak (TFLOP/s)");
  sub.add_option("--calibration", a->calibration,
                 "parameters from `topotune calibrate`: NCCL's model for NCCL's algorithms, "
                 "the physical link parameters for topotune's (docs/calibration.md); recorded "
                 "in the plan");
  add_format_option(sub, a->format, {OutputFormat::Table, OutputFormat::Json}, "table or json");
  sub.add_option("--emit", a->emit,
                 "write configs: nccl-env, torchrun, ddp, horovod, sagemaker, all");
  sub.add_option("--out", a->out, "directory for --emit (files are written all or none)");
  sub.add_option("--replay", a->replay, "recompute a plan JSON from the inputs it embeds");
  sub.footer(
      "Examples:\n"
      "  topotune plan --instance p4d.24xlarge --nodes 4\n"
      "  topotune plan --instance p4d.24xlarge --nodes 4 --framework horovod\n"
      "  topotune plan --instance p5.48xlarge --nodes 16 --model gpt2-xl --format json\n"
      "  topotune plan --instance p4d.24xlarge --nodes 4 --emit all --out cfg/\n"
      "  topotune plan --replay plan.json");
  const CLI::App* app = &sub;  // owned by the parent app, which outlives the run
  return [a, app](std::ostream& out) { return run_plan(*a, *app, out); };
}

}  // namespace topotune::cli
