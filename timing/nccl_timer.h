#pragma once
// NcclTimer: NCCL's own algorithms timed by the NCCL predictor (algorithms/nccl), which
// replicates NCCL's (algorithm, protocol) choice and its channel/rail behaviour and is fitted on
// nccl-tests measurements (data/nccl_model.json, or a `topotune calibrate` file).
//
// nccl:default = what NCCL picks by itself; nccl:ring / nccl:tree = NCCL_ALGO=Ring / Tree (NCCL
// still picks the protocol). A channel count (AlgorithmChoice::channels > 0, "nccl:ring/ch4") is
// what NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS = 4 gives. Every other choice is delegated to
// `other` (topotune's own schedules: the closed forms or the flow simulator), so one timer
// answers for the whole search space.

#include <map>
#include <utility>

#include "algorithms/nccl/nccl_predictor.h"
#include "timing/collective_timer.h"

namespace topotune::tune {

class NcclTimer final : public CollectiveTimer {
 public:
  /// `version`: the NCCL release whose choices are reproduced (unknown: the latest modeled).
  NcclTimer(algo::NcclSystem system, algo::NcclModelParams params, const CollectiveTimer& other,
            algo::NcclVersion version = {});

  std::string name() const override;
  Expected<Seconds> allreduce(const AlgorithmChoice& algo, Bytes bytes) const override;
  /// "nccl-predictor" for NCCL's algorithms, else `other`'s.
  std::string model(const AlgorithmChoice& algo) const override;

  /// What NCCL runs for an NCCL choice at a size: its algorithm, protocol and channel count.
  /// Errc::Unsupported for a choice that is not NCCL's.
  Expected<algo::NcclCandidate> chosen(const AlgorithmChoice& algo, Bytes bytes) const;

  /// MAXCHANNELS of the timer's NCCL release: the most channels NCCL can run.
  int max_channels() const;

 private:
  const algo::NcclPredictor& predictor(const AlgorithmChoice& a) const;

  algo::NcclSystem system_;
  algo::NcclModelParams params_;
  const CollectiveTimer& other_;
  algo::NcclVersion version_;
  /// One predictor per (NCCL_ALGO restriction, channel count), built on first use.
  mutable std::map<std::pair<AlgoKind, int>, algo::NcclPredictor> predictors_;
};

/// True for the choices NcclTimer answers itself (NCCL's own: AlgorithmChoice::is_nccl()).
bool is_nccl_algorithm(const AlgorithmChoice& a);

}  // namespace topotune::tune
