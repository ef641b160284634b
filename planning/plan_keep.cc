#include "planning/plan_keep.h"

#include <algorithm>

#include "planning/emitters_nccl.h"

namespace topotune::tune {

Expected<void> add_plan_keep(PlanKeep& keep, std::string_view name) {
  if (name == "numerics") {
    keep.numerics = true;
  } else if (name == "nccl") {
    keep.nccl = true;
  } else {
    return fail(Errc::InvalidArgument,
                "unknown --keep '" + std::string(name) + "' (known: numerics, nccl)");
  }
  return {};
}

std::vector<std::string> plan_keep_names(const PlanKeep& keep) {
  std::vector<std::string> out;
  if (keep.numerics) out.emplace_back("numerics");
  if (keep.nccl) out.emplace_back("nccl");
  return out;
}

bool keep_allows(const PlanKeep& keep, Framework framework, const algo::AlgorithmChoice& a) {
  if (!keep.nccl) return true;
  // The DDP hook runs hierarchical only with the rules nccl_tuning_for_hook writes.
  const bool ddp_hook = framework == Framework::Ddp && a.kind == algo::AlgoKind::Hierarchical;
  return !needs_tuner_rules(a) && !ddp_hook;
}

Expected<void> plan_keep_dtypes(const PlanKeep& keep, std::vector<sched::DataType>& dtypes) {
  if (!keep.numerics) return {};
  if (dtypes.empty()) {
    dtypes = {sched::DataType::F32};
    return {};
  }
  const bool other = std::any_of(dtypes.begin(), dtypes.end(),
                                 [](sched::DataType d) { return d != sched::DataType::F32; });
  if (other) {
    return fail(Errc::InvalidArgument,
                "--keep numerics keeps fp32 gradients: it contradicts a 16-bit --dtype");
  }
  return {};
}

std::string keep_sentence(const PlanKeep& keep) {
  if (!keep.numerics && !keep.nccl) return "";
  std::string s = " Kept as they are (--keep): ";
  if (keep.numerics) s += "fp32 gradients (no 16-bit wire dtype searched)";
  if (keep.numerics && keep.nccl) s += "; ";
  if (keep.nccl) {
    s += "NCCL's own settings (no tuner rules: no NCCL algorithm pin, channel override or DDP "
         "hook searched)";
  }
  return s + ".";
}

}  // namespace topotune::tune
