#include "algorithms/registry.h"

#include "algorithms/double_binary_tree.h"
#include "algorithms/halving_doubling.h"
#include "algorithms/hierarchical.h"
#include "algorithms/parameter_server.h"
#include "algorithms/ring_allreduce.h"
#include "algorithms/ring_broadcast.h"
#include "algorithms/ring_half.h"

namespace topotune::algo {

std::vector<std::string> algorithm_names() {
  return {"ring",           "tree",           "rhd",           "ps",
          "hierarchical",   "hierarchical:ring", "hierarchical:tree", "hierarchical:rhd",
          "hierarchical:ps", "reduce_scatter_ring", "allgather_ring", "broadcast_ring"};
}

std::string algorithm_names_text() {
  std::string s;
  for (const std::string& n : algorithm_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

Expected<std::unique_ptr<Algorithm>> make_algorithm(std::string_view name,
                                                    const AlgorithmOptions& options,
                                                    sched::Collective collective) {
  using sched::Collective;
  AlgorithmOptions o = options;
  const auto half = [&o](RingHalf::Kind kind) {
    return std::unique_ptr<Algorithm>(new RingHalf(o, kind));
  };
  if (name == "ring") {
    switch (collective) {
      case Collective::ReduceScatter: return half(RingHalf::Kind::ReduceScatter);
      case Collective::Allgather: return half(RingHalf::Kind::Allgather);
      case Collective::Broadcast: return std::unique_ptr<Algorithm>(new RingBroadcast(o));
      case Collective::Allreduce: return std::unique_ptr<Algorithm>(new RingAllreduce(o));
    }
  }
  if (name == "tree") return std::unique_ptr<Algorithm>(new DoubleBinaryTree(o));
  if (name == "rhd") return std::unique_ptr<Algorithm>(new HalvingDoubling(o));
  if (name == "ps") return std::unique_ptr<Algorithm>(new ParameterServer(o));
  if (name == "reduce_scatter_ring") return half(RingHalf::Kind::ReduceScatter);
  if (name == "allgather_ring") return half(RingHalf::Kind::Allgather);
  if (name == "broadcast_ring") return std::unique_ptr<Algorithm>(new RingBroadcast(o));
  if (name == "hierarchical") return std::unique_ptr<Algorithm>(new Hierarchical(o));
  if (name.starts_with("hierarchical:") || name.starts_with("hierarchical+")) {
    TT_TRY(o.inner, parse_inner_algorithm(std::string(name.substr(13))));
    return std::unique_ptr<Algorithm>(new Hierarchical(o));
  }
  return fail(Errc::NotFound,
              "unknown algorithm '" + std::string(name) + "' (known: " + algorithm_names_text() + ")");
}

}  // namespace topotune::algo
