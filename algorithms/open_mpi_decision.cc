#include "algorithms/open_mpi_decision.h"

#include <initializer_list>
#include <utility>

// ompi/mca/coll/tuned/coll_tuned_decision_fixed.c at v4.1.4: the if/else chains of
// ompi_coll_tuned_reduce_scatter_intra_dec_fixed (commutative branch) and
// ompi_coll_tuned_allgatherv_intra_dec_fixed, one row per communicator-size bracket.
namespace topotune::algo {
namespace {

/// One bracket: below `ranks_below` ranks, the first threshold the size is below decides, else
/// `otherwise`.
struct Bracket {
  int ranks_below;
  std::initializer_list<std::pair<std::int64_t, int>> below;
  int otherwise;
};

int decide(std::initializer_list<Bracket> table, int last, int ranks, std::int64_t bytes) {
  for (const Bracket& b : table) {
    if (ranks >= b.ranks_below) continue;
    for (const auto& [limit, alg] : b.below) {
      if (bytes < limit) return alg;
    }
    return b.otherwise;
  }
  return last;
}

}  // namespace

OmpiReduceScatter open_mpi_reduce_scatter(int ranks, std::int64_t total_bytes) {
  // 1 non-overlapping, 2 recursive halving, 3 ring, 4 butterfly; the last bracket (4096 ranks
  // and more) is {< 1024: 1, < 8192: 2, else 4}.
  const int far = total_bytes < 1024 ? 1 : total_bytes < 8192 ? 2 : 4;
  return static_cast<OmpiReduceScatter>(decide(
      {
          {4, {{65536, 3}, {131072, 4}}, 3},
          {8, {{8, 1}, {262144, 2}}, 3},
          {32, {{262144, 2}}, 3},
          {64, {{64, 1}, {2048, 2}, {524288, 4}}, 3},
          {128, {{256, 1}, {512, 2}, {2048, 4}, {4096, 2}}, 4},
          {256, {{256, 1}, {512, 2}}, 4},
          {512, {{256, 1}, {1024, 2}}, 4},
          {1024, {{512, 1}, {2048, 2}, {8192, 4}, {16384, 2}}, 4},
          {2048, {{512, 1}, {4096, 2}, {16384, 4}, {32768, 2}}, 4},
          {4096, {{512, 1}, {4096, 2}}, 4},
      },
      far, ranks, total_bytes));
}

OmpiAllgatherv open_mpi_allgatherv(int ranks, std::int64_t total_bytes) {
  // 1 default, 2 bruck, 3 ring, 4 neighbor, 5 two_proc, on per_rank_dsize = total / ranks.
  const std::int64_t per_rank = ranks > 0 ? total_bytes / ranks : total_bytes;
  if (ranks == 2) {
    return static_cast<OmpiAllgatherv>(per_rank < 2048   ? 3
                                       : per_rank < 4096 ? 5
                                       : per_rank < 8192 ? 3
                                                         : 5);
  }
  const int far = per_rank < 4096 ? 2 : 4;  // 1024 ranks and more
  return static_cast<OmpiAllgatherv>(decide(
      {
          {8, {{256, 1}, {4096, 4}, {8192, 3}, {16384, 4}, {262144, 2}}, 4},
          {16, {{1024, 1}}, 2},
          {32, {{128, 1}, {262144, 2}}, 3},
          {64, {{256, 1}, {8192, 2}}, 3},
          {128, {{256, 1}, {4096, 2}}, 3},
          {256, {{1024, 2}, {65536, 4}}, 3},
          {512, {{1024, 2}}, 3},
          {1024, {{512, 2}, {1024, 1}, {4096, 2}, {1048576, 4}}, 3},
      },
      far, ranks, per_rank));
}

const char* open_mpi_name(OmpiReduceScatter a) {
  switch (a) {
    case OmpiReduceScatter::NonOverlapping:
      return "non-overlapping (reduce + scatterv)";
    case OmpiReduceScatter::RecursiveHalving:
      return "recursive halving";
    case OmpiReduceScatter::Ring:
      return "ring";
    case OmpiReduceScatter::Butterfly:
      return "butterfly";
  }
  return "?";
}

const char* open_mpi_name(OmpiAllgatherv a) {
  switch (a) {
    case OmpiAllgatherv::Default:
      return "default (gatherv + broadcast)";
    case OmpiAllgatherv::Bruck:
      return "bruck";
    case OmpiAllgatherv::Ring:
      return "ring";
    case OmpiAllgatherv::Neighbor:
      return "neighbor exchange";
    case OmpiAllgatherv::TwoProc:
      return "two-process exchange";
  }
  return "?";
}

}  // namespace topotune::algo
