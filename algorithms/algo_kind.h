#pragma once
// AlgoKind: the id of an allreduce algorithm family. The family itself (name, aliases, factory,
// capabilities) is its row in the family table (algorithm_family.h); this header holds only the
// id, so that AlgorithmOptions can name a hierarchical allreduce's inner family without
// including the table.

namespace topotune::algo {

/// The allreduce algorithm families built into topotune. Ids from kFirstRegisteredKind up are
/// families registered at run time (register_algorithm_family, for tests); every property of a
/// family is read from its row, never from a switch over these values.
enum class AlgoKind : int {
  NcclDefault,      ///< nccl:default: whatever NCCL picks by itself
  NcclRing,         ///< nccl:ring: NCCL_ALGO=Ring
  NcclTree,         ///< nccl:tree: NCCL_ALGO=Tree (NCCL's double binary tree)
  Ring,             ///< ring: topotune's flat ring schedule
  DbTree,           ///< dbtree: topotune's double binary tree schedule
  HalvingDoubling,  ///< rhd: recursive halving-doubling, not topology-aware
  ParameterServer,  ///< ps(k=N): push/pull through N CPU servers (BytePS / Herring style)
  Hierarchical,     ///< hierarchical(X): intra-host reduce-scatter, X across hosts, allgather
};

/// The first id register_algorithm_family hands out.
inline constexpr int kFirstRegisteredKind = 1000;

}  // namespace topotune::algo
