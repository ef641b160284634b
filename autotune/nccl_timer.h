#pragma once
// NcclTimer: NCCL's own algorithms timed by the NCCL predictor (algorithms/nccl), which
// replicates NCCL's (algorithm, protocol) choice and its channel/rail behaviour and is fitted on
// nccl-tests measurements (data/nccl_model.json, or a `topotune calibrate` file).
//
// nccl-default = what NCCL picks by itself; ring / tree = NCCL_ALGO=Ring / Tree (NCCL still
// picks the protocol). Every other choice is delegated to `other` (topotune's own schedules:
// the closed forms or the flow simulator), so one timer answers for the whole search space.

#include <map>
#include <memory>

#include "algorithms/nccl/nccl_predictor.h"
#include "autotune/collective_timer.h"

namespace topotune::tune {

class NcclTimer final : public CollectiveTimer {
 public:
  NcclTimer(algo::NcclSystem system, algo::NcclModelParams params, const CollectiveTimer& other);

  std::string name() const override;
  Expected<Seconds> allreduce(const AlgorithmChoice& algo, Bytes bytes) const override;

  /// The NCCL protocol the predictor picks for a choice at a size ("Simple", "LL128", "LL").
  Expected<std::string> protocol(const AlgorithmChoice& algo, Bytes bytes) const;

 private:
  const algo::NcclPredictor* predictor(AlgoKind kind) const;

  algo::NcclPredictor any_;
  algo::NcclPredictor ring_;
  algo::NcclPredictor tree_;
  const CollectiveTimer& other_;
};

/// True for the choices NcclTimer answers itself (nccl-default, ring, tree; no channel count).
bool is_nccl_algorithm(const AlgorithmChoice& a);

}  // namespace topotune::tune
