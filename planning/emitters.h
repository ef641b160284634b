#pragma once
// Emitters: turn a Plan into files a training job uses as is. They return file contents only;
// the CLI writes them (all or nothing). Every file carries a stamp (emitted_stamp.h) by which a
// later --emit recognises it as topotune's and unedited. Every emitted setting carries a one-line
// comment saying why. An algorithm NCCL/DDP cannot run as is (halving-doubling, a parameter server,
// topotune's hierarchical compositions) is never emitted as if it could: the files say so,
// name what it would need (SageMaker's smddp for the Herring-style parameter server, or
// topotune's runtime), and configure the best candidate that does run, with its predicted
// step time.
//
//   nccl-env   -> nccl.env, and nccl_tuner_rules.txt when the plan needs NCCL to run something
//                 other than its own choice (an nccl:ring/tree pick, a /chN override, the
//                 DDP hook's collectives: emitters_nccl.h); nccl.env then sets only
//                 NCCL_TUNER_PLUGIN=topotune and NCCL_TUNER_TOPOTUNE_RULES (relative: it is
//                 KEY=VALUE for any launcher). Never NCCL_ALGO, NCCL_PROTO or NCCL_*NCHANNELS,
//                 which change every collective of every size.
//   torchrun   -> torchrun.sh (launch line for the nodes, sourcing nccl.env; exports the rules'
//                 absolute path and prepends the optional $TOPOTUNE_TUNER_LIB to
//                 LD_LIBRARY_PATH)
//   ddp        -> ddp_snippet.py (bucket_cap_mb, first bucket, gradient_as_bucket_view, the
//                 bf16/fp16 compression hook)
//   horovod    -> horovod.env (HOROVOD_FUSION_THRESHOLD, HOROVOD_CYCLE_TIME,
//                 HOROVOD_TORUS_ALLREDUCE) from the plan's Horovod sweep; NCCL's algorithm is
//                 left to NCCL, with the rules line that would pin it in a comment
//   sagemaker  -> sagemaker_distribution.py (an estimator `distribution` dict: smdistributed
//                 dataparallel where the plan wants it and the instance supports it, else mpi
//                 with processes_per_host, plus the NCCL environment: the plugin and its
//                 rules by absolute path under /opt/ml/code/)

#include <string>
#include <vector>

#include "core/expected.h"
#include "planning/framework.h"
#include "planning/plan.h"

namespace topotune::tune {

/// One file to write: a name relative to the output directory, and its content.
struct EmittedFile {
  std::string name;
  std::string content;
};

/// The emitter kinds, in the order `all` writes them.
std::vector<std::string> emitter_names();

/// The files of one emitter ("nccl-env", "torchrun", "ddp", "horovod", "sagemaker") or of
/// all of them ("all"), each stamped (emitted_stamp.h). Errc::InvalidArgument for an unknown
/// name.
Expected<std::vector<EmittedFile>> emit(const Plan& plan, const std::string& kind);

/// Every file the emitter `kind` (or "all") writes for some plan. One of them that a new
/// emit of `kind` does not write is stale (an earlier plan's nccl_tuner_rules.txt where the
/// new plan loads no tuner plugin). Empty for an unknown kind.
std::vector<std::string> emitter_file_names(const std::string& kind);

}  // namespace topotune::tune
