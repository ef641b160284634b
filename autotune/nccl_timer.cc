#include "autotune/nccl_timer.h"

namespace topotune::tune {
namespace {

algo::NcclOptions only(std::vector<algo::NcclAlgo> algos) {
  algo::NcclOptions o;
  o.algos = std::move(algos);
  return o;
}

}  // namespace

bool is_nccl_algorithm(const AlgorithmChoice& a) {
  return a.channels == 0 && (a.kind == AlgoKind::NcclDefault || a.kind == AlgoKind::Ring ||
                             a.kind == AlgoKind::Tree);
}

NcclTimer::NcclTimer(algo::NcclSystem system, algo::NcclModelParams params,
                     const CollectiveTimer& other)
    : any_(system, params, {}),
      ring_(system, params, only({algo::NcclAlgo::Ring})),
      tree_(system, params, only({algo::NcclAlgo::Tree})),
      other_(other) {}

std::string NcclTimer::name() const {
  return "NCCL predictor (nccl-default/ring/tree) + " + other_.name();
}

const algo::NcclPredictor* NcclTimer::predictor(AlgoKind kind) const {
  switch (kind) {
    case AlgoKind::NcclDefault: return &any_;
    case AlgoKind::Ring: return &ring_;
    case AlgoKind::Tree: return &tree_;
    default: return nullptr;
  }
}

Expected<Seconds> NcclTimer::allreduce(const AlgorithmChoice& a, Bytes bytes) const {
  if (!is_nccl_algorithm(a)) return other_.allreduce(a, bytes);
  if (bytes.value <= 0) return Seconds(0);
  TT_TRY(const algo::NcclPrediction p,
         predictor(a.kind)->predict(sched::Collective::Allreduce, bytes));
  return p.chosen.time;
}

Expected<std::string> NcclTimer::protocol(const AlgorithmChoice& a, Bytes bytes) const {
  if (!is_nccl_algorithm(a)) return fail(Errc::Unsupported, a.name() + " is not NCCL's");
  TT_TRY(const algo::NcclPrediction p,
         predictor(a.kind)->predict(sched::Collective::Allreduce, bytes));
  return std::string(algo::nccl_proto_name(p.chosen.proto));
}

}  // namespace topotune::tune
