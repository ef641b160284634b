#include "timing/nccl_timer.h"

#include "algorithms/nccl/nccl_search_tables.h"

namespace topotune::tune {

bool is_nccl_algorithm(const AlgorithmChoice& a) { return a.is_nccl(); }

NcclTimer::NcclTimer(algo::NcclSystem system, algo::NcclModelParams params,
                     const CollectiveTimer& other, algo::NcclVersion version)
    : system_(std::move(system)), params_(std::move(params)), other_(other), version_(version) {}

int NcclTimer::max_channels() const { return algo::nccl_max_channels(version_.code()); }

std::string NcclTimer::name() const {
  return "NCCL predictor (nccl:default/nccl:ring/nccl:tree) + " + other_.name();
}

std::string NcclTimer::model(const AlgorithmChoice& a) const {
  return is_nccl_algorithm(a) ? "nccl-predictor" : other_.model(a);
}

const algo::NcclPredictor& NcclTimer::predictor(const AlgorithmChoice& a) const {
  const auto key = std::make_pair(a.kind, a.channels);
  if (auto it = predictors_.find(key); it != predictors_.end()) return it->second;
  algo::NcclOptions o;
  o.version = version_;
  if (a.kind == AlgoKind::NcclRing) o.algos = {algo::NcclAlgo::Ring};
  if (a.kind == AlgoKind::NcclTree) o.algos = {algo::NcclAlgo::Tree};
  // The plan emits NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS = channels.
  o.min_channels = a.channels;
  o.max_channels = a.channels;
  return predictors_.emplace(key, algo::NcclPredictor(system_, params_, o)).first->second;
}

Expected<algo::NcclCandidate> NcclTimer::chosen(const AlgorithmChoice& a, Bytes bytes) const {
  if (!is_nccl_algorithm(a)) return fail(Errc::Unsupported, a.name() + " is not NCCL's");
  TT_TRY(const algo::NcclPrediction p, predictor(a).predict(sched::Collective::Allreduce, bytes));
  return p.chosen;
}

Expected<Seconds> NcclTimer::allreduce(const AlgorithmChoice& a, Bytes bytes) const {
  if (!is_nccl_algorithm(a)) return other_.allreduce(a, bytes);
  if (bytes.value <= 0) return Seconds(0);
  TT_TRY(const algo::NcclCandidate c, chosen(a, bytes));
  return c.time;
}

}  // namespace topotune::tune
