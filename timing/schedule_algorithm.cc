#include "timing/schedule_algorithm.h"

namespace topotune::tune {

Expected<std::unique_ptr<algo::Algorithm>> make_schedule_algorithm(const AlgorithmChoice& a) {
  if (a.kind == AlgoKind::NcclDefault) {
    return fail(Errc::InvalidArgument,
                a.name() + " is NCCL's own choice, not a topotune schedule: run it with NCCL");
  }
  return algo::make_choice_algorithm(a);
}

bool is_planner_label(const std::string& name) {
  return name.find('(') != std::string::npos || name.find("/ch") != std::string::npos;
}

}  // namespace topotune::tune
