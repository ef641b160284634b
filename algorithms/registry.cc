#include "algorithms/registry.h"

#include "algorithms/hierarchical.h"
#include "algorithms/parameter_server.h"
#include "algorithms/ring_broadcast.h"
#include "algorithms/ring_half.h"

namespace topotune::algo {

std::vector<std::string> algorithm_names() {
  return {"ring",
          "dbtree",
          "rhd",
          "ps",
          "hierarchical(ring)",
          "hierarchical(dbtree)",
          "hierarchical(rhd)",
          "hierarchical(ps)",
          "reduce_scatter_ring",
          "allgather_ring",
          "broadcast_ring"};
}

std::string algorithm_names_text() {
  return "ring, dbtree, rhd, ps(k=N), hierarchical(ring|dbtree|rhd|ps(k=N)), any of them with "
         "/chN (channels); ps and hierarchical alone take --shards/--ps-placement/--inner; "
         "reduce_scatter_ring, allgather_ring, broadcast_ring; NCCL's nccl:default, nccl:ring, "
         "nccl:tree are timed by `topotune predict` (docs/algorithms.md)";
}

Expected<std::unique_ptr<Algorithm>> make_algorithm(std::string_view name,
                                                    const AlgorithmOptions& options,
                                                    sched::Collective collective) {
  const AlgorithmOptions& o = options;
  if (name == "reduce_scatter_ring") {
    return std::unique_ptr<Algorithm>(new RingHalf(o, RingHalf::Kind::ReduceScatter));
  }
  if (name == "allgather_ring") {
    return std::unique_ptr<Algorithm>(new RingHalf(o, RingHalf::Kind::Allgather));
  }
  if (name == "broadcast_ring") return std::unique_ptr<Algorithm>(new RingBroadcast(o));
  // The option-driven forms: the flags decide what the bare family name leaves open.
  if (name == "ps") return std::unique_ptr<Algorithm>(new ParameterServer(o));
  if (name == "hierarchical") return std::unique_ptr<Algorithm>(new Hierarchical(o));
  auto choice = parse_algorithm_choice(name);
  if (!choice) {
    return fail(Errc::NotFound, "unknown algorithm '" + std::string(name) +
                                    "' (known: " + algorithm_names_text() + ")");
  }
  return make_choice_algorithm(*choice, o, collective);
}

}  // namespace topotune::algo
