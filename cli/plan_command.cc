// topotune plan: which allreduce algorithm, DDP bucket size and gradient dtype make a
// data-parallel training step fastest on a cluster, and the configs to run it.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <variant>

#include "cli/commands.h"
#include "cli/output_format.h"
#include "cli/path_flag.h"
#include "cli/plan_emit.h"
#include "cli/plan_inputs.h"
#include "cli/plan_report.h"
#include "cli/sharded_plan_report.h"
#include "core/file_output.h"
#include "core/input_file.h"
#include "core/output_directory.h"
#include "planning/plan.h"
#include "planning/sharded_emitters.h"
#include "planning/sharded_plan.h"

namespace topotune::cli {
namespace {

// A flag that would be ignored is an error: the user meant something by it.
Expected<void> check_flags(const CLI::App& app) {
  const auto given = [&app](const char* f) { return app.count(f) > 0; };
  if (given("--out") && !given("--emit")) {
    return fail(Errc::InvalidArgument, "--out needs --emit KIND (without it nothing is written)");
  }
  if (given("--emit") && !given("--out")) {
    return fail(Errc::InvalidArgument, "--emit needs --out DIR");
  }
  if (given("--force") && !given("--emit")) {
    return fail(Errc::InvalidArgument, "--force needs --emit KIND (it lets --emit replace files)");
  }
  for (const char* f :
       {"--instance", "--nodes", "--placement", "--cluster", "--model", "--batch-per-gpu",
        "--seq-len", "--dtype", "--algos", "--backend", "--framework", "--compute-efficiency",
        "--peak-tflops", "--precision", "--timing", "--calibration", "--nccl-version", "--keep"}) {
    if (given("--replay") && given(f)) {
      return fail(Errc::InvalidArgument, std::string(f) +
                                             " would be ignored with --replay "
                                             "(a replay uses the plan's own inputs)");
    }
  }
  return {};
}

// A DDP plan from the flags, or a stored plan replayed: a stored sharded plan is replayed by
// the sharded planner, so either kind comes back.
using ComputedPlan = std::variant<tune::Plan, tune::ShardedPlan>;

Expected<ComputedPlan> compute_plan(const PlanArgs& a) {
  if (a.replay.empty()) {
    TT_TRY(tune::PlanInputs in, plan_inputs_from_args(a));
    TT_TRY(tune::Plan plan, tune::make_plan(std::move(in)));
    return ComputedPlan(std::move(plan));
  }
  TT_TRY(const std::string text, read_input_file(a.replay, "plan"));
  TT_TRY(const tune::StoredPlan stored, tune::read_plan_json(text, a.replay));
  if (stored.sharded) {
    TT_TRY(tune::ShardedPlan sharded, tune::replay_sharded_plan(stored));
    return ComputedPlan(std::move(sharded));
  }
  TT_TRY(tune::Plan plan, tune::replay_plan(stored));
  return ComputedPlan(std::move(plan));
}

// Part of the same commit as the files written; said so that its absence is no surprise.
void report_removed(const EmitOutcome& emitted, OutputFormat format, std::ostream& out) {
  if (format != OutputFormat::Table) return;
  for (const std::string& r : emitted.removed) {
    out << "removed " << r << ": an earlier plan's, unedited; this plan does not write it\n";
  }
}

Expected<void> report_sharded_plan(const tune::ShardedPlan& plan, const PlanArgs& a,
                                   std::ostream& out);

// --framework fsdp: the sharded planner (planning/sharded_plan.h). Flags of the DDP search
// would be ignored, so they are errors; the batch defaults to 1 sequence per GPU.
Expected<void> run_sharded_plan(const PlanArgs& a, const CLI::App& app, std::ostream& out) {
  for (const char* f : {"--dtype", "--algos", "--buckets", "--replay"}) {
    if (app.count(f) > 0) {
      return fail(Errc::InvalidArgument,
                  std::string(f) + " does not apply to --framework " + a.framework);
    }
  }
  if (a.format == OutputFormat::Csv) {
    return fail(Errc::InvalidArgument, "--framework fsdp writes table or json, not csv");
  }
  PlanArgs ddp = a;
  ddp.framework = "ddp";
  // Sequences per GPU: --batch-per-gpu, else 1 (a profile's measured batch is not a sharded
  // job's micro-batch).
  if (app.count("--batch-per-gpu") == 0) ddp.batch = 1;
  ddp.batch_given = true;
  TT_TRY(tune::PlanInputs in, plan_inputs_from_args(ddp));
  TT_TRY(in.framework, tune::parse_framework(a.framework));  // recorded for --replay
  TT_TRY(const tune::ShardedPlan plan, tune::make_sharded_plan(in));
  return report_sharded_plan(plan, a, out);
}

// A sharded plan's files and report (its --replay too).
Expected<void> report_sharded_plan(const tune::ShardedPlan& plan, const PlanArgs& a,
                                   std::ostream& out) {
  if (a.format == OutputFormat::Csv) {
    return fail(Errc::InvalidArgument, "a sharded plan writes table or json, not csv");
  }
  // Files first, as for DDP plans: a failed write is not followed by output.
  EmitOutcome emitted;
  if (!a.emit.empty()) {
    TT_TRY(emitted, write_plan_files(plan, a.emit, a.out, a.force));
  }
  if (a.format == OutputFormat::Json) {
    out << tune::sharded_plan_to_json(plan);
    return {};
  }
  print_sharded_plan(plan, out);
  report_removed(emitted, a.format, out);
  return {};
}

Expected<void> run_plan(const PlanArgs& a, const CLI::App& app, std::ostream& out) {
  TT_TRY_VOID(check_flags(app));
  // The framework decides which planner answers (empty: DDP's, or topotune's with --backend
  // mpi, as plan_inputs_from_args says); a bad name is refused before any directory is made.
  bool sharded = false;
  if (!a.framework.empty()) {
    TT_TRY(const tune::Framework f, tune::parse_framework(a.framework).context("--framework"));
    sharded = tune::is_sharded(f);
  }
  std::optional<OutputDirectory> out_dir;
  if (!a.emit.empty() && app.count("--out") > 0) {
    // Before the work: --out's last component is created when missing (and removed again
    // if the plan or the emit fails), then checked like every output target.
    TT_TRY(out_dir, OutputDirectory::prepare(a.out).context("--out"));
  }
  if (sharded) {
    TT_TRY_VOID(run_sharded_plan(a, app, out));
    if (out_dir) out_dir->keep();
    return {};
  }
  PlanArgs args = a;
  args.batch_given = app.count("--batch-per-gpu") > 0;  // else the profile's batch, or 32
  TT_TRY(ComputedPlan computed, compute_plan(args));
  if (const auto* replayed = std::get_if<tune::ShardedPlan>(&computed)) {
    TT_TRY_VOID(report_sharded_plan(*replayed, a, out));
    if (out_dir) out_dir->keep();
    return {};
  }
  tune::Plan& plan = std::get<tune::Plan>(computed);
  // Files first: a failed write must not be followed by output that looks like success.
  EmitOutcome emitted;
  if (!a.emit.empty()) {
    TT_TRY(emitted, write_plan_files(plan, a.emit, a.out, a.force));
  }
  if (out_dir) out_dir->keep();
  if (a.format == OutputFormat::Json) {
    out << tune::plan_to_json(plan);
    return {};
  }
  print_plan_report(plan, a.format, out);
  report_removed(emitted, a.format, out);
  return {};
}

}  // namespace

CommandRun setup_plan(CLI::App& sub) {
  auto a = std::make_shared<PlanArgs>();
  add_cluster_flags(sub, a->cluster);
  sub.add_option("--model", a->model,
                 "built-in model (bert-large, gpt2-xl, llama-3.2-1b, llama-3.1-8b, llama-3.1-70b, "
                 "maskrcnn-r50-fpn, resnet50, vit-l16) or "
                 "a profile FILE.json (docs/model-profile.md); default bert-large")
      ->capture_default_str();
  sub.add_option("--batch-per-gpu", a->batch,
                 "samples per GPU per step (default: the profile's measured batch, else 32; "
                 "the plan says which)");
  sub.add_option("--seq-len", a->seq_len,
                 "tokens per sample for a transformer profile that states its shape (the "
                 "built-in llama-3.x and gpt2-xl do): its linear layers' FLOPs scale with the "
                 "length, attention's with its square, activations with it (default: the "
                 "profile's own length)");
  sub.add_option("--precision", a->precision,
                 "what the job trains in: fp32, tf32, amp-fp16, amp-bf16 (default: amp-bf16 "
                 "where the GPU computes bf16 natively, else amp-fp16 with tensor cores, else "
                 "fp32); chooses the GPU peak the compute time is measured against");
  sub.add_option("--timing", a->timing,
                 "auto (a profile's measured per-layer times where it has them) or flops "
                 "(drop measured times, time layers from their FLOPs; needed for a profile "
                 "measured on the CPU)")
      ->capture_default_str();
  sub.add_option("--dtype", a->dtype,
                 "gradient dtype on the wire: fp32, bf16, fp16, or auto (fp32 and bf16 where "
                 "the GPU computes bf16 natively, Ampere and later; fp32 and fp16 on Volta and "
                 "Turing; 16 bits only if > 2 % faster)")
      ->capture_default_str();
  sub.add_option("--algos", a->algos,
                 "search only these algorithm families (comma list of nccl-default, ring, tree, "
                 "rhd, ps, hierarchical), e.g. what your runtime can run, each at its own "
                 "channel count (NCCL's for NCCL's); add /chN to also search a family over "
                 "channel counts (nccl:default/chN); default: all, with the channel sweep. The "
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
  sub.add_option(
      "--framework", a->framework,
      "what the job runs its allreduces with: ddp (PyTorch DDP on NCCL), horovod, "
      "smddp (SageMaker's library: its algorithm is not modelled), topotune "
      "(`topotune measure`). The recommendation is the best candidate it runs with "
      "the emitted files, or its defaults. Default: ddp (topotune with --backend mpi). "
      "fsdp: rank sharded training instead (DDP, FSDP2, HSDP, ZeRO-1/2/3, with memory "
      "per GPU; batch per GPU defaults to 1 sequence; with --backend mpi the collectives are "
      "topotune's rings on the flow simulator, as gloo runs them; docs/planner.md)");
  sub.add_option("--compute-efficiency", a->efficiency,
                 "achieved share of the precision's peak (default: the profile's, else its "
                 "family's roofline fit on published throughput, docs/planner.md, else 0.4)");
  sub.add_option("--peak-tflops", a->peak_tflops,
                 "override the GPU's dense peak for the precision (TFLOP/s)");
  sub.add_option("--calibration", a->calibration,
                 "parameters from `topotune calibrate`: NCCL's model for NCCL's algorithms, "
                 "the physical link parameters for topotune's (docs/calibration.md); recorded "
                 "in the plan")
      ->check(non_empty_path());
  sub.add_option("--nccl-version", a->nccl_version,
                 "the NCCL release the job runs, e.g. 2.18.5: NCCL's choices (algorithm, "
                 "protocol, channels) are predicted as that release makes them (default: the "
                 "latest modeled release; the plan says which it assumed)");
  add_format_option(sub, a->format, {OutputFormat::Table, OutputFormat::Json, OutputFormat::Csv},
                    "table (default), json (the plan, docs/planner.md), or csv (the table's "
                    "candidates and baselines, one row each)");
  sub.add_option("--emit", a->emit,
                 "write configs: nccl-env, torchrun, ddp, horovod, sagemaker, all; with "
                 "--framework fsdp: fsdp (FSDP2 snippet), deepspeed (ds_config.json), all");
  sub.add_option("--out", a->out, "directory for --emit (files are written all or none)")
      ->check(non_empty_path());
  sub.add_flag("--force", a->force,
               "let --emit replace (or remove, if stale) files in --out that were edited since "
               "topotune wrote them or that topotune did not write; without it such files make "
               "--emit refuse and write nothing");
  sub.add_option("--keep", a->keep,
                 "keep as it is (repeatable or a comma list): numerics (fp32 gradients: no "
                 "bf16/fp16 on the wire), nccl (no NCCL setting: no tuner rules, so only NCCL's "
                 "own choice at its own channel count, and not topotune's DDP hook, whose "
                 "collectives need rules)");
  sub.add_option("--replay", a->replay, "recompute a plan JSON from the inputs it embeds")
      ->check(non_empty_path());
  sub.footer(
      "Examples:\n"
      "  topotune plan --instance p4d.24xlarge --nodes 4\n"
      "  topotune plan --instance p4d.24xlarge --nodes 4 --framework horovod\n"
      "  topotune plan --instance p5.48xlarge --nodes 16 --model gpt2-xl --format json\n"
      "  topotune plan --instance p4d.24xlarge --nodes 4 --emit all --out cfg/\n"
      "  topotune plan --instance p4d.24xlarge --nodes 4 --keep numerics,nccl\n"
      "  topotune plan --replay plan.json");
  const CLI::App* app = &sub;  // owned by the parent app, which outlives the run
  return [a, app](std::ostream& out) { return run_plan(*a, *app, out); };
}

}  // namespace topotune::cli
