#include "autotune/schedule_algorithm.h"

#include <algorithm>

#include "algorithms/registry.h"

namespace topotune::tune {
namespace {

algo::InnerAlgorithm inner_of(AlgoKind k) {
  switch (k) {
    case AlgoKind::Tree: return algo::InnerAlgorithm::Tree;
    case AlgoKind::HalvingDoubling: return algo::InnerAlgorithm::Rhd;
    case AlgoKind::ParameterServer: return algo::InnerAlgorithm::Ps;
    default: return algo::InnerAlgorithm::Ring;
  }
}

}  // namespace

Expected<std::unique_ptr<algo::Algorithm>> make_schedule_algorithm(const AlgorithmChoice& a) {
  algo::AlgorithmOptions o;
  o.channels = std::max(1, a.channels);
  o.ps_placement = algo::PsPlacement::Cpu;
  o.shards = a.servers;
  switch (a.kind) {
    case AlgoKind::Ring: return algo::make_algorithm("ring", o);
    case AlgoKind::Tree: return algo::make_algorithm("tree", o);
    case AlgoKind::HalvingDoubling: return algo::make_algorithm("rhd", o);
    case AlgoKind::ParameterServer: return algo::make_algorithm("ps", o);
    case AlgoKind::Hierarchical:
      o.inner = inner_of(a.inner);
      return algo::make_algorithm("hierarchical", o);
    case AlgoKind::NcclDefault: break;
  }
  return fail(Errc::InvalidArgument,
              a.name() + " is NCCL's own choice, not a topotune schedule: run it with NCCL");
}

bool is_planner_label(const std::string& name) {
  return name.find('(') != std::string::npos || name.find("/ch") != std::string::npos;
}

}  // namespace topotune::tune
