#pragma once
// `plan --emit KIND --out DIR`: the plan's files written into DIR as one all-or-nothing set
// (core/file_output.h), without destroying what a user made of an earlier set. Each emitted
// file carries a stamp (planning/emitted_stamp.h); before anything is written every file of
// KIND's set that exists in DIR is read:
//
//  - stamped and unedited: topotune's, as written: replaced (or, if this plan does not write
//    it, such as an earlier plan's nccl_tuner_rules.txt, removed in the same commit);
//  - edited since, or not stamped (a user's file, or one from a topotune without stamps):
//    the whole emit is refused (exit 2, nothing written, the files named) unless `force`.
//
// The check runs before the commit, not under its directory lock: a file edited in the
// milliseconds between the two is replaced.

#include <string>
#include <vector>

#include "core/expected.h"
#include "planning/emitters.h"
#include "planning/plan.h"
#include "planning/sharded_plan.h"

namespace topotune::cli {

/// What an emit did, for the report: paths written and stale paths removed.
struct EmitOutcome {
  std::vector<std::string> written;
  std::vector<std::string> removed;
};

/// Writes `files` (stamped) into the existing directory `dir`, as above; `names` are every
/// file the emitter kind can write (a present one that `files` lacks is stale); `force`
/// replaces (and removes) edited and foreign files too.
Expected<EmitOutcome> write_emitted_files(const std::vector<tune::EmittedFile>& files,
                                          const std::vector<std::string>& names,
                                          const std::string& dir, bool force);

/// `plan`'s files of emitter `kind` (DDP, Horovod, SageMaker, NCCL), by write_emitted_files.
Expected<EmitOutcome> write_plan_files(const tune::Plan& plan, const std::string& kind,
                                       const std::string& dir, bool force);

/// A sharded plan's files of emitter `kind` (fsdp, deepspeed, all), by write_emitted_files.
Expected<EmitOutcome> write_plan_files(const tune::ShardedPlan& plan, const std::string& kind,
                                       const std::string& dir, bool force);

}  // namespace topotune::cli
