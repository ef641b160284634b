#include "autotune/emitters.h"

#include <cctype>
#include <cstdio>
#include <sstream>

namespace topotune::tune {
namespace {

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

std::string step_ms(const Candidate& c) { return fmt("%.3g ms", c.step.step.value * 1e3); }

// What NCCL/DDP will actually run, and why it may differ from the recommendation.
struct Runnable {
  const Candidate* candidate = nullptr;
  std::string why;  // empty when it is the recommendation itself
};

Runnable runnable(const Plan& plan) {
  const Candidate& rec = plan.report.recommendation;
  if (nccl_runnable(rec.algo)) return {&rec, ""};
  Runnable r{best_nccl_runnable(plan.report), ""};
  r.why = "the plan's best algorithm, " + rec.algo.name() + " (" + step_ms(rec) +
          "), is not one NCCL runs as is; it needs topotune's runtime" +
          (rec.algo.kind == AlgoKind::ParameterServer ||
                   (rec.algo.kind == AlgoKind::Hierarchical &&
                    rec.algo.inner == AlgoKind::ParameterServer)
               ? " or SageMaker's smddp (Herring-style)"
               : "") +
          ". These settings configure the best NCCL-runnable candidate instead";
  if (r.candidate) r.why += ", " + r.candidate->algo.name() + " (" + step_ms(*r.candidate) + ")";
  return r;
}

std::string header(const Plan& plan, const char* c = "#") {
  const PlanInputs& in = plan.inputs;
  std::ostringstream o;
  o << c << " topotune " << plan.version << " plan: " << in.model.name << " on " << in.nodes
    << " x " << in.instance << " (" << in.nodes * in.shape.gpus_per_host << " GPUs), batch "
    << in.compute.batch_per_gpu << " per GPU.\n"
    << c << " " << recommendation_sentence(plan) << "\n";
  const Runnable r = runnable(plan);
  if (!r.why.empty()) o << c << " NOTE: " << r.why << ".\n";
  return o.str();
}

std::string nccl_algo_value(const AlgorithmChoice& a) {
  if (a.kind == AlgoKind::NcclRing) return "Ring";
  if (a.kind == AlgoKind::NcclTree) return "Tree";
  return "";
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// The same candidate with NCCL's own channel count, to say what the chosen count buys.
const Candidate* default_channels_of(const Plan& plan, const Candidate& c) {
  for (const Candidate& x : plan.report.candidates) {
    AlgorithmChoice a = c.algo;
    a.channels = 0;
    if (x.algo == a && x.dtype == c.dtype && x.bucket_cap == c.bucket_cap &&
        x.framework == c.framework) {
      return &x;
    }
  }
  return nullptr;
}

std::string rule_bytes(const NcclBucketRule& r) {
  return std::to_string(r.min_bytes) + "-" + std::to_string(r.max_bytes) + " bytes";
}

// One NCCL environment variable with the line that says why (empty value: not set, and why).
struct EnvSetting {
  std::string name;
  std::string value;
  std::string why;
};

EnvSetting proto_setting(const Plan& plan, const Candidate& c) {
  const std::vector<NcclBucketRule>& rules = plan.nccl_rules;
  std::string by_range;
  for (const NcclBucketRule& r : rules) {
    by_range += (by_range.empty() ? "" : ", ") + r.proto + " for " + rule_bytes(r);
  }
  if (rules.empty()) return {"NCCL_PROTO", "", "NCCL_PROTO not set: no bucket to time"};
  bool one = true;
  for (const NcclBucketRule& r : rules) one = one && r.proto == rules.front().proto;
  if (nccl_algo_value(c.algo).empty()) {
    return {"NCCL_PROTO", "",
            "NCCL_PROTO not set: the plan keeps NCCL's own algorithm choice, and with it its "
            "protocol choice (predicted: " + by_range + ")"};
  }
  if (!one) {
    return {"NCCL_PROTO", "",
            "NCCL_PROTO not set: the predictor has NCCL pick " + by_range +
                "; one global value cannot say that (nccl_tuner.csv does)"};
  }
  return {"NCCL_PROTO", rules.front().proto,
          rules.front().proto + " is the predictor's protocol for every bucket (" + by_range +
              ") with NCCL_ALGO=" + nccl_algo_value(c.algo) +
              "; pinned with the algorithm so NCCL runs what was predicted (it applies to every "
              "collective: nccl_tuner.csv scopes it to the buckets)"};
}

std::vector<EnvSetting> nccl_settings(const Plan& plan, const Candidate& c) {
  std::vector<EnvSetting> out;
  const std::string algo = nccl_algo_value(c.algo);
  if (algo.empty()) {
    out.push_back({"NCCL_ALGO", "",
                   "NCCL_ALGO not set: NCCL's own choice is predicted best (" + step_ms(c) +
                       "); overriding it would not help"});
  } else {
    out.push_back({"NCCL_ALGO", algo,
                   algo + " is predicted fastest for this model's buckets (" + step_ms(c) +
                       "); NCCL_ALGO applies to every collective and size (nccl_tuner.csv "
                       "scopes it to the buckets)"});
  }
  out.push_back(proto_setting(plan, c));
  const int own = plan.nccl_rules.empty() ? 0 : plan.nccl_rules.front().channels;
  if (c.algo.channels <= 0) {
    out.push_back({"NCCL_MIN_NCHANNELS", "",
                   "NCCL_MIN_NCHANNELS/NCCL_MAX_NCHANNELS not set: no channel count (1, 2, 4, "
                   "... up to NCCL's MAXCHANNELS) is predicted to make the step more than 2 % "
                   "faster than NCCL's own count (" + std::to_string(own) + ")"});
    return out;
  }
  const std::string n = std::to_string(c.algo.channels);
  std::string why = n + " channels (NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS) are predicted "
                        "fastest for this plan's buckets: step " + step_ms(c);
  if (const Candidate* d = default_channels_of(plan, c)) {
    why += " vs " + step_ms(*d) + " with NCCL's own count";
  }
  out.push_back({"NCCL_MIN_NCHANNELS", n, why});
  out.push_back({"NCCL_MAX_NCHANNELS", n, "the same count as the maximum, so NCCL runs exactly " +
                                              n + " channels"});
  return out;
}

std::string nccl_env(const Plan& plan) {
  std::ostringstream o;
  o << header(plan);
  const Runnable r = runnable(plan);
  if (!r.candidate) return o.str() + "# No NCCL-runnable candidate was evaluated: nothing set.\n";
  for (const EnvSetting& e : nccl_settings(plan, *r.candidate)) {
    o << "# " << e.why << ".\n";
    if (!e.value.empty()) o << e.name << "=" << e.value << "\n";
  }
  o << "# To apply the plan only to the buckets' allreduce sizes instead of global settings, "
       "build NCCL's ext-tuner/example plugin and set\n"
    << "# NCCL_TUNER_PLUGIN=/path/to/libnccl-tuner-example.so "
       "NCCL_TUNER_CONFIG_FILE=nccl_tuner.csv\n";
  return o.str();
}

std::string nccl_tuner_csv(const Plan& plan) {
  std::ostringstream o;
  o << header(plan)
    << "# NCCL ext-tuner/example format: "
       "coll,min_bytes,max_bytes,algo,proto,channels,nNodes,nRanks,numPipeOps,regBuff\n";
  const Runnable r = runnable(plan);
  if (!r.candidate || (nccl_algo_value(r.candidate->algo).empty() &&
                       r.candidate->algo.channels <= 0)) {
    return o.str() + "# No rule: NCCL's own choice is predicted best.\n";
  }
  const int nodes = plan.inputs.nodes;
  const int ranks = nodes * plan.inputs.shape.gpus_per_host;
  const int channels = r.candidate->algo.channels;
  o << "# allreduce of the plan's bucket sizes, one row per size range with the algorithm and "
       "protocol the predictor has NCCL run for " << r.candidate->algo.name() << "; channels "
    << (channels > 0 ? std::to_string(channels) + " (the plan's count)"
                     : std::string("-1 (NCCL's own count)"))
    << "; numPipeOps/regBuff -1 = any; this node and rank count only\n";
  for (const NcclBucketRule& rule : plan.nccl_rules) {
    o << "allreduce," << rule.min_bytes << "," << rule.max_bytes << "," << rule.algo << ","
      << lower(rule.proto) << "," << (channels > 0 ? channels : -1) << "," << nodes << ","
      << ranks << ",-1,-1\n";
  }
  return o.str();
}

std::string torchrun_sh(const Plan& plan) {
  const PlanInputs& in = plan.inputs;
  std::ostringstream o;
  o << "#!/usr/bin/env bash\n" << header(plan)
    << "# Run on every node with MASTER_ADDR set to node 0's address and NODE_RANK to this "
       "node's index.\nset -euo pipefail\n"
    << "# The plan's NCCL settings, exported to every rank.\n"
    << "set -a; source \"$(dirname \"$0\")/nccl.env\"; set +a\n"
    << "# --nnodes=" << in.nodes << ": the plan's node count; --nproc_per_node="
    << in.shape.gpus_per_host << ": one process per GPU of a " << in.instance << ".\n"
    << "exec torchrun --nnodes=" << in.nodes << " --nproc_per_node=" << in.shape.gpus_per_host
    << " --node_rank=\"${NODE_RANK:?}\" --master_addr=\"${MASTER_ADDR:?}\" --master_port=29500 "
       "\"$@\"\n";
  return o.str();
}

std::string ddp_snippet(const Plan& plan) {
  std::ostringstream o;
  o << header(plan) << "import torch.distributed as dist\n"
    << "from torch.nn.parallel import DistributedDataParallel as DDP\n\n";
  const Runnable r = runnable(plan);
  if (!r.candidate) return o.str() + "# No NCCL-runnable candidate: keep DDP's defaults.\n";
  const Candidate& c = *r.candidate;
  const double cap_mb = c.bucket_cap.as_double() / (1 << 20);
  o << "# First bucket = the cap, as the plan simulated it (PyTorch >= 2.1 does this when "
       "bucket_cap_mb is given; older versions read this attribute).\n"
    << "dist._DEFAULT_FIRST_BUCKET_BYTES = " << c.first_bucket.value << "\n"
    << "model = DDP(\n    model,\n    # One GPU per process: torchrun's LOCAL_RANK.\n"
    << "    device_ids=[local_rank],\n"
    << "    # " << fmt("%g", cap_mb) << " MiB buckets: predicted step " << step_ms(c) << " vs "
    << step_ms(plan.report.baseline_ddp) << " with the default 25 MiB.\n"
    << "    bucket_cap_mb=" << fmt("%g", cap_mb) << ",\n"
    << "    # Gradients live in the buckets: saves one copy per step and the memory of a "
       "second gradient copy.\n"
    << "    gradient_as_bucket_view=True,\n)\n";
  if (c.dtype == CommDtype::Bf16 || c.dtype == CommDtype::Fp16) {
    const char* hook = c.dtype == CommDtype::Bf16 ? "bf16_compress_hook" : "fp16_compress_hook";
    o << "from torch.distributed.algorithms.ddp_comm_hooks import default_hooks\n"
      << "# " << comm_dtype_name(c.dtype)
      << " gradients on the wire halve the allreduce bytes; predicted to beat fp32 by more than "
         "2 % (this changes gradient numerics).\n"
      << "model.register_comm_hook(dist.group.WORLD, default_hooks." << hook << ")\n";
  }
  return o.str();
}

std::string horovod_env(const Plan& plan) {
  const Candidate& h = plan.report.horovod_best;
  std::ostringstream o;
  o << header(plan) << "# Horovod knobs from a sweep of fusion threshold x cycle time with "
    << h.algo.name() << ": predicted step " << step_ms(h) << " vs "
    << step_ms(plan.report.baseline_horovod) << " with Horovod's defaults.\n"
    << "# Fuse up to " << fmt("%g", h.bucket_cap.as_double() / (1 << 20))
    << " MiB of ready gradients per allreduce.\n"
    << "HOROVOD_FUSION_THRESHOLD=" << h.bucket_cap.value << "\n"
    << "# Milliseconds between background cycles that collect ready gradients.\n"
    << "HOROVOD_CYCLE_TIME=" << fmt("%g", h.cycle_time.value * 1e3) << "\n"
    << "# " << (h.algo.kind == AlgoKind::Hierarchical ? "1: intra-node reduce-scatter, "
                                                         "inter-node allreduce, allgather won"
                                                       : "0: a flat NCCL allreduce won")
    << ".\nHOROVOD_HIERARCHICAL_ALLREDUCE=" << (h.algo.kind == AlgoKind::Hierarchical ? 1 : 0)
    << "\n";
  if (const std::string algo = nccl_algo_value(h.algo); !algo.empty()) {
    o << "# Horovod's allreduce goes through NCCL; " << algo << " won the sweep.\n"
      << "NCCL_ALGO=" << algo << "\n";
  }
  if (h.dtype != CommDtype::Fp32) {
    o << "# Gradient compression is set in code: hvd.DistributedOptimizer(..., "
         "compression=hvd.Compression.fp16). Horovod has no bf16 compression; fp16 moves the "
         "same bytes (same predicted time) with fp16's narrower range.\n";
  }
  return o.str();
}

std::string mpi_options(const Plan& plan, const Candidate* c) {
  if (!c) return "";
  std::string out;
  for (const EnvSetting& e : nccl_settings(plan, *c)) {
    if (!e.value.empty()) out += (out.empty() ? "-x " : " -x ") + e.name + "=" + e.value;
  }
  return out;
}

bool wants_smddp(const Plan& plan) {
  const AlgorithmChoice& a = plan.report.recommendation.algo;
  return a.kind == AlgoKind::ParameterServer ||
         (a.kind == AlgoKind::Hierarchical && a.inner == AlgoKind::ParameterServer);
}

std::string sagemaker_py(const Plan& plan) {
  const PlanInputs& in = plan.inputs;
  std::ostringstream o;
  o << header(plan);
  if (in.sagemaker_name.empty()) {
    return o.str() + "# " + in.instance +
           " is not a SageMaker instance type: there is no estimator to configure.\n"
           "distribution = None\n";
  }
  o << "# The plan's instance type.\ninstance_type = \"" << in.sagemaker_name
    << "\"\n# The plan's node count.\ninstance_count = " << in.nodes << "\n";
  if (wants_smddp(plan) && smddp_supported(in.sagemaker_name)) {
    o << "# " << plan.report.recommendation.algo.name()
      << " won; SMDDP's AllReduce is AWS's Herring-style reduction through host CPUs over "
         "EFA,\n# the closest runnable form (topotune models it as that parameter server: "
         "treat the prediction as approximate).\n# The training script must call "
         "dist.init_process_group(backend=\"smddp\").\n"
      << "distribution = {\"smdistributed\": {\"dataparallel\": {\"enabled\": True}}}\n";
    return o.str();
  }
  if (wants_smddp(plan)) {
    o << "# " << in.sagemaker_name << " does not run SMDDP (" << smddp_instances_text()
      << " only): using MPI with the best NCCL-runnable candidate.\n";
  }
  const Runnable r = runnable(plan);
  const std::string opts = mpi_options(plan, r.candidate);
  o << "# MPI starts the ranks; the allreduce is NCCL's, configured as below.\n"
    << "distribution = {\n    \"mpi\": {\n"
    << "        # Launch one rank per GPU with MPI (DDP with env:// init, or Horovod).\n"
    << "        \"enabled\": True,\n"
    << "        # One process per GPU of a " << in.instance << ".\n"
    << "        \"processes_per_host\": " << in.shape.gpus_per_host << ",\n"
    << "        # "
    << (opts.empty() ? "No NCCL override: NCCL's own choice is predicted best."
                     : "The plan's NCCL settings (nccl.env says why), exported to every rank.")
    << "\n        \"custom_mpi_options\": \"" << opts << "\",\n    }\n}\n";
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
    out.push_back({"nccl_tuner.csv", nccl_tuner_csv(plan)});
  }
  if (all || kind == "torchrun") out.push_back({"torchrun.sh", torchrun_sh(plan)});
  if (all || kind == "ddp") out.push_back({"ddp_snippet.py", ddp_snippet(plan)});
  if (all || kind == "horovod") out.push_back({"horovod.env", horovod_env(plan)});
  if (all || kind == "sagemaker") out.push_back({"sagemaker_distribution.py", sagemaker_py(plan)});
  if (out.empty()) {
    return fail(Errc::InvalidArgument,
                "unknown --emit '" + kind + "' (nccl-env, torchrun, ddp, horovod, sagemaker, all)");
  }
  return out;
}

}  // namespace topotune::tune
