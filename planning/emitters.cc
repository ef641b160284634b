#include "planning/emitters.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "core/name_check.h"
#include "planning/emitted_stamp.h"
#include "planning/emitters_nccl.h"
#include "planning/nccl_tuner_rules.h"
#include "topology/cluster_spec.h"

namespace topotune::tune {
namespace {

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

std::string step_ms(const Candidate& c) { return fmt("%.3g ms", c.step.step.value * 1e3); }

// Generated prose for a comment line: it quotes no input name today, but a newline in it
// would end the comment, so anything outside printable ASCII becomes '?'.
std::string comment_line(std::string text) {
  for (char& ch : text) {
    if (ch < 0x20 || ch >= 0x7f) ch = '?';
  }
  return text;
}

// What the NCCL and DDP files configure: the recommendation when it is a DDP candidate on
// NCCL and not the defaults; else nothing, and why.
struct Runnable {
  const Candidate* candidate = nullptr;
  std::string why;  // empty when it is the recommendation itself
};

// topotune.ddp_hooks (python/topotune) runs hierarchical allreduce with the backend's own
// allreduce between hosts: for DDP that is hierarchical(ring) at the library's channel count.
bool ddp_hook_runs(const AlgorithmChoice& a) {
  return a.kind == AlgoKind::Hierarchical && a.inner == AlgoKind::Ring && a.channels == 0;
}

// True when the DDP snippet registers topotune's comm hook: a DDP plan recommending what the
// hook runs (framework.h's capability table says DDP runs it through the hook).
bool runs_as_ddp_hook(const Plan& plan) {
  const Candidate& rec = plan.report.recommendation;
  return !plan.keeps_defaults && plan.inputs.framework == Framework::Ddp &&
         rec.framework == Framework::Ddp && ddp_hook_runs(rec.algo) &&
         framework_runs(Framework::Ddp, rec.algo);
}

Runnable runnable(const Plan& plan) {
  const Candidate& rec = plan.report.recommendation;
  if (plan.keeps_defaults) return {nullptr, "the plan keeps the defaults: nothing is set"};
  if (rec.algo.is_nccl() && rec.framework == Framework::Ddp) return {&rec, ""};
  if (runs_as_ddp_hook(plan)) {
    return {nullptr, "the plan runs " + rec.algo.name() +
                         " as topotune's DDP comm hook (ddp_snippet.py); " + kTunerRulesFile +
                         " (nccl.env loads it) has NCCL run the hook's collectives as timed"};
  }
  const Framework f = plan.inputs.framework;
  return {nullptr, "the plan is for " + std::string(framework_name(f)) + " (" + rec.algo.name() +
                       ": " + how_framework_runs(f, rec.algo) +
                       "); these NCCL/DDP settings keep their defaults"};
}

std::string header(const Plan& plan, const char* c = "#", bool hook_runs_it = false) {
  const PlanInputs& in = plan.inputs;
  std::ostringstream o;
  o << c << " topotune " << plan.version << " plan: " << comment_text(in.model.name) << " on "
    << plan.cluster.nodes << " x " << comment_text(plan.cluster.instance) << " ("
    << plan.cluster.nodes * plan.cluster.shape.gpus_per_host << " GPUs), batch "
    << in.compute.batch_per_gpu << " per GPU.\n"
    << c << " Assumes NCCL " << nccl_version_words(in.nccl_version)
    << (in.nccl_version.known ? "" : "; plan --nccl-version says which the job runs") << ".\n"
    << c << " " << comment_line(recommendation_sentence(plan)) << "\n";
  const Runnable r = runnable(plan);
  if (!r.why.empty() && !hook_runs_it) o << c << " NOTE: " << comment_line(r.why) << ".\n";
  return o.str();
}

std::string nccl_algo_value(const AlgorithmChoice& a) {
  if (a.kind == AlgoKind::NcclRing) return "Ring";
  if (a.kind == AlgoKind::NcclTree) return "Tree";
  return "";
}

// One environment variable with the line that says why.
struct EnvSetting {
  std::string name;
  std::string value;
  std::string why;
};

// What the NCCL files configure: the tuner plugin and its rules for the NCCL candidate a DDP
// plan recommends or for topotune's DDP hook; nothing (no rules) otherwise.
NcclTuning nccl_tuning(const Plan& plan) {
  const Runnable r = runnable(plan);
  if (r.candidate) return nccl_tuning_for_candidate(plan, *r.candidate);
  if (runs_as_ddp_hook(plan)) return nccl_tuning_for_hook(plan, plan.report.recommendation);
  return {};
}

// NCCL_TUNER_PLUGIN and NCCL_TUNER_TOPOTUNE_RULES as nccl.env sets them: KEY=VALUE that
// SageMaker and Horovod environments read too, so the rules path is relative (to the job's
// working directory) and torchrun.sh turns it into an absolute one.
std::vector<EnvSetting> plugin_settings() {
  return {{"NCCL_TUNER_PLUGIN", "topotune",
           "topotune's NCCL tuner plugin: NCCL dlopens libnccl-tuner-topotune.so from the "
           "loader path (docs/tuner-plugin.md). Build it with `cmake --build build --target "
           "nccl-tuner-topotune` and put build/tuner_plugin on LD_LIBRARY_PATH on every node "
           "(torchrun.sh: TOPOTUNE_TUNER_LIB). If it fails to load, NCCL logs it and runs "
           "without it (its own choices, or the network plugin's tuner): safe, just untuned"},
          {"NCCL_TUNER_TOPOTUNE_RULES", kTunerRulesFile,
           "The plugin's rules, written next to this file. Relative to the job's working "
           "directory: torchrun.sh exports its absolute path; other launchers must give one"}};
}

std::string nccl_env(const Plan& plan) {
  std::ostringstream o;
  o << header(plan);
  const Runnable r = runnable(plan);
  const NcclTuning t = nccl_tuning(plan);
  if (t.notes.empty()) return o.str() + "# Nothing set: " + r.why + ".\n";
  for (const std::string& n : t.notes) o << "# " << comment_line(n) << ".\n";
  if (t.rules.empty()) return o.str();
  for (const EnvSetting& e : plugin_settings()) {
    o << "# " << e.why << ".\n" << e.name << "=" << e.value << "\n";
  }
  o << "# No NCCL_ALGO, NCCL_PROTO or NCCL_*NCHANNELS: they would change every collective of "
       "every size, and the plan timed only its own.\n";
  return o.str();
}

// The launch environment EFA instances need (not tuning: set whatever the plan recommends).
// The SageMaker training toolkit sets FI_PROVIDER=efa on EFA instances and
// FI_EFA_USE_DEVICE_RDMA=1 only on those with GPUDirect RDMA (aws/sagemaker-training-toolkit
// src/sagemaker_training/smdataparallel.py, SM_EFA_RDMA_INSTANCES); on EFA without RDMA read
// (g5) the variable makes libfabric abort. The catalog says which instance has which.
std::vector<EnvSetting> efa_settings(const Plan& plan) {
  const topo::ClusterSpec* spec = &plan.inputs.cluster;
  if (spec->instance.transport != topo::NetTransport::Efa) return {};
  std::vector<EnvSetting> out = {
      {"FI_PROVIDER", "efa", "EFA instance: libfabric's EFA provider for aws-ofi-nccl"}};
  if (spec->instance.gpudirect_rdma) {
    out.push_back({"FI_EFA_USE_DEVICE_RDMA", "1",
                   "GPUDirect RDMA over EFA (the catalog: this instance has it)"});
  }
  return out;
}

// Where the DDP hook runs, every rank imports topotune.ddp_hooks: the package is not on
// PyPI, so the job must carry it.
constexpr const char* kShipHook =
    "Ship python/topotune with the job: every node imports it (copy the folder next to the "
    "training script, or put <topotune checkout>/python on PYTHONPATH on every node).";

std::string torchrun_sh(const Plan& plan) {
  std::ostringstream o;
  o << "#!/usr/bin/env bash\n"
    << header(plan)
    << "# Run on every node with MASTER_ADDR set to node 0's address and NODE_RANK to this "
       "node's index.\nset -euo pipefail\n"
    << "# The plan's NCCL settings, exported to every rank.\n"
    << "set -a; source \"$(dirname \"$0\")/nccl.env\"; set +a\n";
  if (!nccl_tuning(plan).rules.empty()) {
    o << "# nccl.env names the tuner rules relative to the working directory; every rank gets "
         "the absolute path of the file next to this script.\n"
      << "export NCCL_TUNER_TOPOTUNE_RULES=\"$(cd \"$(dirname \"$0\")\" && pwd)/" << kTunerRulesFile
      << "\"\n"
      << "# TOPOTUNE_TUNER_LIB (optional): the folder holding libnccl-tuner-topotune.so "
         "(build/tuner_plugin), put first on the loader path.\n"
      << "if [ -n \"${TOPOTUNE_TUNER_LIB:-}\" ]; then export "
         "LD_LIBRARY_PATH=\"$TOPOTUNE_TUNER_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\"; fi\n";
  }
  if (runs_as_ddp_hook(plan)) {
    o << "# ddp_snippet.py registers topotune's DDP comm hook. " << kShipHook << "\n"
      << "# TOPOTUNE_PYTHON: that python folder on this node (refused if unset).\n"
      << "export PYTHONPATH=\"${TOPOTUNE_PYTHON:?set TOPOTUNE_PYTHON to the folder holding "
         "topotune/ (python/ of a topotune checkout)}${PYTHONPATH:+:$PYTHONPATH}\"\n";
  }
  for (const EnvSetting& e : efa_settings(plan)) {
    o << "# " << e.why << ".\nexport " << e.name << "=" << e.value << "\n";
  }
  o << "# --nnodes=" << plan.cluster.nodes
    << ": the plan's node count; --nproc_per_node=" << plan.cluster.shape.gpus_per_host
    << ": one process per GPU of a " << comment_text(plan.cluster.instance) << ".\n"
    << "exec torchrun --nnodes=" << plan.cluster.nodes
    << " --nproc_per_node=" << plan.cluster.shape.gpus_per_host
    << " --node_rank=\"${NODE_RANK:?}\" --master_addr=\"${MASTER_ADDR:?}\" --master_port=29500 "
       "\"$@\"\n";
  return o.str();
}

// The bucket's comment says what the bucket alone buys (GainStep), not the whole plan's gain.
std::string bucket_why(const Plan& plan, const Candidate& c, double cap_mb) {
  const std::string words = fmt("%g", cap_mb) + " MiB buckets";
  for (const GainStep& g : plan.attribution) {
    // A first-bucket-only change leaves the cap at the default: nothing for this line to say.
    if (g.knob == GainKnob::Buckets && g.alone.bucket_cap != plan.report.baseline_ddp.bucket_cap) {
      return words + " alone: predicted step " + step_ms(g.alone) + " vs " +
             step_ms(plan.report.baseline_ddp) + " with the default 25 MiB (every change of " +
             "the plan together: " + step_ms(c) + ").";
    }
  }
  return words + ": the plan's step " + step_ms(c) +
         " (DDP's defaults: " + step_ms(plan.report.baseline_ddp) + ").";
}

std::string ddp_snippet(const Plan& plan) {
  std::ostringstream o;
  const Candidate& rec = plan.report.recommendation;
  const bool hook = runs_as_ddp_hook(plan);
  o << header(plan, "#", hook) << "import os\n\nimport torch.distributed as dist\n"
    << "from torch.nn.parallel import DistributedDataParallel as DDP\n\n"
    << "# One GPU per process: torchrun (and SageMaker's torch_distributed) set LOCAL_RANK.\n"
    << "local_rank = int(os.environ[\"LOCAL_RANK\"])\n";
  const Runnable r = runnable(plan);
  if (!hook && !r.candidate) {
    return o.str() + "# DDP's defaults (" + r.why +
           ").\nmodel = DDP(model, device_ids=[local_rank])\n";
  }
  const Candidate& c = hook ? rec : *r.candidate;
  const double cap_mb = c.bucket_cap.as_double() / (1 << 20);
  o << "# First bucket = the cap, as the plan simulated it (PyTorch >= 2.1 does this when "
       "bucket_cap_mb is given; older versions read this attribute).\n"
    << "dist._DEFAULT_FIRST_BUCKET_BYTES = " << c.first_bucket.value << "\n"
    << "model = DDP(\n    model,\n    # This process's GPU.\n    device_ids=[local_rank],\n"
    << "    # " << bucket_why(plan, c, cap_mb) << "\n"
    << "    bucket_cap_mb=" << fmt("%g", cap_mb) << ",\n"
    << "    # Gradients live in the buckets: saves one copy per step and the memory of a "
       "second gradient copy.\n"
    << "    gradient_as_bucket_view=True,\n)\n";
  if (hook) {
    const char* wrap = c.dtype == sched::DataType::BF16  ? ", compression=\"bf16\""
                       : c.dtype == sched::DataType::F16 ? ", compression=\"fp16\""
                                                         : "";
    o << "# " << rec.algo.name() << " runs as a DDP comm hook (docs/pytorch.md). From a checkout: "
      << "PYTHONPATH=<topotune checkout>/python torchrun ...\n"
      << "# " << kShipHook << "\n"
      << "from topotune import ddp_hooks\n"
      << "# Reduce-scatter on each host, allreduce per rail, all-gather on each host; "
      << plan.cluster.shape.gpus_per_host << " ranks per host"
      << (wrap[0] != 0 ? std::string(", ") + sched::dtype_name(c.dtype) + " on the wire" : "")
      << ".\n"
      << "ddp_hooks.register(model, ranks_per_node=" << plan.cluster.shape.gpus_per_host << wrap
      << ")\n";
  } else if (c.dtype == sched::DataType::BF16 || c.dtype == sched::DataType::F16) {
    const char* hook =
        c.dtype == sched::DataType::BF16 ? "bf16_compress_hook" : "fp16_compress_hook";
    o << "from torch.distributed.algorithms.ddp_comm_hooks import default_hooks\n"
      << "# " << sched::dtype_name(c.dtype)
      << " gradients on the wire halve the allreduce bytes; predicted to beat fp32 by more than "
         "2 % (this changes gradient numerics).\n"
      << "model.register_comm_hook(dist.group.WORLD, default_hooks." << hook << ")\n";
  }
  return o.str();
}

// Horovod's pick: the recommendation for --framework horovod; otherwise Horovod's sweep if it
// beats Horovod's defaults by the margin. Null: keep Horovod's defaults.
const Candidate* horovod_pick(const Plan& plan) {
  const TuneReport& r = plan.report;
  if (plan.inputs.framework == Framework::Horovod) {
    return plan.keeps_defaults ? nullptr : &r.recommendation;
  }
  const Candidate& h = r.horovod_best;
  const bool beats =
      h.step.step.value < r.baseline_horovod.step.step.value * (1 - kDefaultDtypeMargin);
  return beats && framework_runs(Framework::Horovod, h.algo) ? &h : nullptr;
}

// Horovod's knobs for `h`, each with the line that says why: horovod.env and SageMaker's
// environment set the same variables.
std::vector<EnvSetting> horovod_settings(const Candidate& h) {
  std::vector<EnvSetting> out = {
      {"HOROVOD_FUSION_THRESHOLD", std::to_string(h.bucket_cap.value),
       "Fuse up to " + fmt("%g", h.bucket_cap.as_double() / (1 << 20)) +
           " MiB of ready gradients per allreduce"},
      {"HOROVOD_CYCLE_TIME", fmt("%g", h.cycle_time.value * 1e3),
       "Milliseconds between background cycles that collect ready gradients"}};
  if (h.algo.kind == AlgoKind::Hierarchical) {
    // HOROVOD_HIERARCHICAL_ALLREDUCE would run the cross-node step through host memory and
    // MPI_Allreduce (NCCLHierarchicalAllreduce), which is not what was timed.
    out.push_back({"HOROVOD_TORUS_ALLREDUCE", "1",
                   "NCCL reduce-scatter in the node, NCCL allreduce across nodes per local rank, "
                   "NCCL all-gather, all GPU-direct, won (Horovod >= 0.26.0: NCCLTorusAllreduce; "
                   "NCCL picks the cross-node algorithm, timed as a ring). Not "
                   "HOROVOD_HIERARCHICAL_ALLREDUCE: it stages the cross-node step through host "
                   "memory and MPI_Allreduce, not timed here"});
  }
  // No NCCL_ALGO: it would change every collective and size Horovod's NCCL runs, and the
  // sweep timed only its fusion buffers (horovod_nccl_note says what would pin it).
  return out;
}

// Horovod's pick of NCCL's Ring or Tree is left to NCCL: NCCL_ALGO would apply to every
// collective and size. The comment gives the tuner-plugin rule that would run only the fused
// allreduces (the sizes the sweep timed, on the world communicator) that way.
std::string horovod_nccl_note(const Plan& plan, const Candidate& h) {
  const std::string algo = nccl_algo_value(h.algo);
  if (algo.empty() || h.step.buckets.empty()) return "";
  std::int64_t lo = INT64_MAX;
  std::int64_t hi = 0;
  for (const sim::BucketEvent& b : h.step.buckets) {
    lo = std::min(lo, b.bytes.value);
    hi = std::max(hi, b.bytes.value);
  }
  const int nodes = plan.cluster.nodes;
  return "# NCCL_ALGO not set: it would change every collective and size, and the step above "
         "assumes " +
         algo +
         " only for the fused allreduces. NCCL keeps its own choice unless topotune's "
         "tuner plugin (docs/tuner-plugin.md) loads a rules file with the line: allreduce " +
         std::to_string(lo) + " " + std::to_string(hi) + " " + std::to_string(nodes) + " " +
         std::to_string(nodes * plan.cluster.shape.gpus_per_host) + " " + algo + " any\n";
}

std::string horovod_env(const Plan& plan) {
  const PlanInputs& in = plan.inputs;
  const Candidate* h = horovod_pick(plan);
  std::ostringstream o;
  o << "# topotune " << plan.version << " plan: " << comment_text(in.model.name) << " on "
    << plan.cluster.nodes << " x " << comment_text(plan.cluster.instance)
    << ", for Horovod (the algorithms searched: --algos), assuming NCCL "
    << nccl_version_words(in.nccl_version) << ".\n";
  if (!h) {
    return o.str() + "# Keep Horovod's defaults (predicted step " +
           step_ms(plan.report.baseline_horovod) +
           "): nothing Horovod runs is predicted to beat them by more than 2 %. Nothing set.\n";
  }
  o << "# Use " << h->algo.name() << " (" << how_framework_runs(Framework::Horovod, h->algo)
    << ") with the fusion threshold and cycle time below: predicted step " << step_ms(*h) << " vs "
    << step_ms(plan.report.baseline_horovod) << " with Horovod's defaults.\n";
  for (const EnvSetting& e : horovod_settings(*h)) {
    o << "# " << e.why << ".\n" << e.name << "=" << e.value << "\n";
  }
  o << horovod_nccl_note(plan, *h);
  if (h->dtype != sched::DataType::F32) {
    o << "# Gradient compression is set in code: hvd.DistributedOptimizer(..., "
         "compression=hvd.Compression.fp16). Horovod has no bf16 compression; fp16 moves the "
         "same bytes (same predicted time) with fp16's narrower range.\n";
  }
  return o.str();
}

// SageMaker unpacks the estimator's source_dir into /opt/ml/code (code_dir in
// aws/sagemaker-training-toolkit src/sagemaker_training/environment.py), the container's
// loader path is the image's: both files are named there by absolute path.
constexpr const char* kSageMakerCodeDir = "/opt/ml/code/";

// environment = {...}: the plan's NCCL settings (the tuner plugin, when the plan loads it),
// the EFA launch variables and, for a Horovod plan, Horovod's knobs (Horovod reads them from
// the environment of every rank).
std::string environment_dict(const Plan& plan) {
  std::vector<EnvSetting> all = efa_settings(plan);
  if (!nccl_tuning(plan).rules.empty()) {
    all.push_back(
        {"NCCL_TUNER_PLUGIN", std::string(kSageMakerCodeDir) + "libnccl-tuner-topotune.so", ""});
    all.push_back(
        {"NCCL_TUNER_TOPOTUNE_RULES", std::string(kSageMakerCodeDir) + kTunerRulesFile, ""});
  }
  const Candidate* h = plan.inputs.framework == Framework::Horovod ? horovod_pick(plan) : nullptr;
  if (h) {
    for (const EnvSetting& e : horovod_settings(*h)) all.push_back(e);
  }
  std::string out = "environment = {\n";
  for (const EnvSetting& e : all) {
    if (!e.value.empty()) {
      out += "    " + python_string_literal(e.name) + ": " + python_string_literal(e.value) + ",\n";
    }
  }
  return out + "}\n";
}

std::string sagemaker_py(const Plan& plan) {
  const PlanInputs& in = plan.inputs;
  std::ostringstream o;
  o << header(plan);
  if (plan.cluster.sagemaker_name.empty()) {
    return o.str() + "# " + comment_text(plan.cluster.instance) +
           " is not a SageMaker instance type: there is no estimator to configure.\n"
           "distribution = None\n";
  }
  o << "# The plan's instance type.\ninstance_type = "
    << python_string_literal(plan.cluster.sagemaker_name)
    << "\n# The plan's node count.\ninstance_count = " << plan.cluster.nodes << "\n";
  o << "# Pass to the estimator as environment=environment: NCCL's settings (nccl.env says "
       "why), EFA's launch variables"
    << (in.framework == Framework::Horovod ? " and Horovod's knobs (horovod.env says why)" : "")
    << ".\n";
  if (!nccl_tuning(plan).rules.empty()) {
    o << "# The tuner plugin by absolute path: put " << kTunerRulesFile
      << " and libnccl-tuner-topotune.so (built for the image) in the estimator's source_dir, "
         "which SageMaker unpacks into "
      << kSageMakerCodeDir << ". Missing, NCCL runs without it (its own choices).\n";
  }
  o << environment_dict(plan);
  switch (in.framework) {
    case Framework::Smddp:
      o << "# SMDDP's own AllReduce (not modelled by topotune). The training script must call "
           "dist.init_process_group(backend=\"smddp\").\n"
        << "distribution = {\"smdistributed\": {\"dataparallel\": {\"enabled\": True}}}\n";
      break;
    case Framework::Horovod:
      o << "# Horovod: MPI starts one rank per GPU (horovod.env holds its knobs).\n"
        << "distribution = {\"mpi\": {\"enabled\": True, \"processes_per_host\": "
        << plan.cluster.shape.gpus_per_host << "}}\n";
      break;
    case Framework::Ddp:
    case Framework::Topotune:
    case Framework::Fsdp:  // a DDP plan never has it (make_plan refuses it)
      o << "# PyTorch DDP: SageMaker runs torchrun on every node (one process per GPU; "
           "LOCAL_RANK set).\n"
        << "distribution = {\"torch_distributed\": {\"enabled\": True}}\n";
      break;
  }
  return o.str();
}

}  // namespace

std::vector<std::string> emitter_names() {
  return {"nccl-env", "torchrun", "ddp", "horovod", "sagemaker"};
}

Expected<std::vector<EmittedFile>> emit(const Plan& plan, const std::string& kind) {
  std::vector<EmittedFile> out;
  const bool all = kind == "all";
  if (all || kind == "nccl-env") {
    out.push_back({"nccl.env", nccl_env(plan)});
    if (NcclTuning t = nccl_tuning(plan); !t.rules.empty()) {
      out.push_back({kTunerRulesFile, std::move(t.rules)});
    }
  }
  if (all || kind == "torchrun") out.push_back({"torchrun.sh", torchrun_sh(plan)});
  if (all || kind == "ddp") out.push_back({"ddp_snippet.py", ddp_snippet(plan)});
  if (all || kind == "horovod") out.push_back({"horovod.env", horovod_env(plan)});
  if (all || kind == "sagemaker") out.push_back({"sagemaker_distribution.py", sagemaker_py(plan)});
  if (out.empty()) {
    return fail(Errc::InvalidArgument,
                "unknown --emit '" + kind + "' (nccl-env, torchrun, ddp, horovod, sagemaker, all)");
  }
  for (EmittedFile& f : out) f.content = stamp_emitted(f.content);
  return out;
}

std::vector<std::string> emitter_file_names(const std::string& kind) {
  const bool all = kind == "all";
  std::vector<std::string> out;
  if (all || kind == "nccl-env") out.insert(out.end(), {"nccl.env", kTunerRulesFile});
  if (all || kind == "torchrun") out.push_back("torchrun.sh");
  if (all || kind == "ddp") out.push_back("ddp_snippet.py");
  if (all || kind == "horovod") out.push_back("horovod.env");
  if (all || kind == "sagemaker") out.push_back("sagemaker_distribution.py");
  return out;
}

}  // namespace topotune::tune
