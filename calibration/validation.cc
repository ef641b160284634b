#include "calibration/validation.h"

#include <algorithm>

namespace topotune::tune {

RowModel row_model(const std::string& algorithm) {
  if (algorithm == "nccl") return RowModel::Nccl;
  if (algorithm == "mpi") return RowModel::OpenMpi;
  return RowModel::Schedule;
}

RowPredictor::RowPredictor(const algo::NcclPredictor& nccl, topo::ClusterSpec cluster, int channels,
                           int chunks, BudgetFn budget)
    : nccl_(nccl),
      cluster_(std::move(cluster)),
      channels_(channels),
      chunks_(chunks),
      budget_(std::move(budget)) {}

Expected<std::pair<double, std::string>> RowPredictor::predict(const std::string& algorithm,
                                                               const sched::CollectiveSpec& spec) {
  const RowModel model = row_model(algorithm);
  if (model == RowModel::Nccl) {
    TT_TRY(const algo::NcclPrediction p, nccl_.predict(spec.collective, spec.bytes));
    return std::pair{p.chosen.time.us(), std::string(algo::nccl_algo_name(p.chosen.algo)) + "/" +
                                             algo::nccl_proto_name(p.chosen.proto)};
  }
  if (!schedules_) {
    algo::MemoryBudget memory;
    if (budget_) {
      TT_TRY(memory, budget_());
    }
    TT_TRY(schedules_, SchedulePredictor::create(cluster_, channels_, chunks_, memory));
  }
  TT_TRY(const Seconds t, schedules_->time(algorithm, spec).context(algorithm));
  return std::pair{t.us(), std::string(model == RowModel::OpenMpi ? "simulated rhd (Open MPI model)"
                                                                  : "simulated schedule")};
}

Expected<std::vector<ValidationRow>> compare_run(const rt::Measurement& run,
                                                 RowPredictor& predictor,
                                                 std::vector<std::string>* unmodelled) {
  std::vector<ValidationRow> rows;
  const double factor = sched::busbw_factor(run.collective, run.ranks);
  for (const rt::MeasurementRow& r : run.rows) {
    if (r.bytes <= 0 || r.time_us <= 0) continue;
    if (row_model(r.algorithm) == RowModel::OpenMpi &&
        run.collective != sched::Collective::Allreduce) {
      if (unmodelled != nullptr &&
          std::find(unmodelled->begin(), unmodelled->end(), r.algorithm) == unmodelled->end()) {
        unmodelled->push_back(r.algorithm);
      }
      continue;
    }
    sched::CollectiveSpec spec;
    spec.collective = run.collective;
    spec.dtype = r.dtype;
    spec.ranks = run.ranks;
    spec.bytes = Bytes(r.bytes);
    TT_TRY(const auto pred, predictor.predict(r.algorithm, spec));
    const double t = pred.first;
    const auto bytes = static_cast<double>(r.bytes);
    ValidationRow row;
    row.bytes = r.bytes;
    row.algorithm = r.algorithm;
    row.measured_us = r.time_us;
    row.predicted_us = t;
    row.measured_busbw = bytes / (r.time_us * 1e3) * factor;
    row.predicted_busbw = bytes / (t * 1e3) * factor;
    row.error = busbw_error(r.time_us, t);
    row.model = pred.second;
    rows.push_back(std::move(row));
  }
  if (rows.empty()) {
    return fail(Errc::InvalidArgument,
                unmodelled != nullptr && !unmodelled->empty()
                    ? "the measurement has no row with a model (Open MPI's own " +
                          std::string(sched::collective_name(run.collective)) + " has none)"
                    : std::string("the measurement has no sizes > 0"));
  }
  return rows;
}

std::vector<std::string> algorithms_of(const std::vector<ValidationRow>& rows) {
  std::vector<std::string> out;
  for (const ValidationRow& r : rows) {
    if (std::find(out.begin(), out.end(), r.algorithm) == out.end()) out.push_back(r.algorithm);
  }
  return out;
}

ErrorSummary summary_of(const std::vector<ValidationRow>& rows, const std::string& algorithm) {
  std::vector<MeasuredPoint> points;
  std::vector<double> errors;
  for (const ValidationRow& r : rows) {
    if (!algorithm.empty() && r.algorithm != algorithm) continue;
    points.push_back({Bytes(r.bytes), r.measured_us});
    errors.push_back(r.error);
  }
  return summarize_errors(points, errors);
}

}  // namespace topotune::tune
