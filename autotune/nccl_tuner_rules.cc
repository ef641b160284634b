#include "autotune/nccl_tuner_rules.h"

#include <sstream>

namespace topotune::tune {

std::string nccl_tuner_rules_file(const Plan& plan, int channels_override) {
  const int nodes = plan.cluster.nodes;
  const int ranks = nodes * plan.cluster.shape.gpus_per_host;
  std::ostringstream o;
  o << "# topotune NCCL tuner rules (docs/tuner-plugin.md): allreduce on " << nodes << " nodes, "
    << ranks << " ranks, per bucket-size range of the plan; NCCL's own choice elsewhere.\n"
    << "# collective min_bytes max_bytes nnodes nranks algo proto [channels]\n";
  for (const NcclBucketRule& r : plan.nccl_rules) {
    o << "allreduce " << r.min_bytes << " " << r.max_bytes << " " << nodes << " " << ranks << " "
      << r.algo << " " << r.proto;
    if (channels_override > 0) o << " " << channels_override;
    o << "\n";
  }
  return o.str();
}

}  // namespace topotune::tune
