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
  return std::pair{t.us(), model == RowModel::OpenMpi ? "simulated " + open_mpi_model_name(spec)
                                                      : std::string("simulated schedule")};
}

Expected<std::vector<ValidationRow>> compare_run(const rt::Measurement& run,
                                                 RowPredictor& predictor,
                                                 std::vector<std::string>* unmodelled) {
  std::vector<ValidationRow> rows;
  const double factor = sched::busbw_factor(run.collective, run.ranks);
  // Open MPI's reduce-scatter and allgather rows whose algorithm has no schedule here: each
  // reason with the sizes it left out.
  std::vector<std::pair<std::string, int>> left_out;
  for (const rt::MeasurementRow& r : run.rows) {
    if (r.bytes <= 0 || r.time_us <= 0) continue;
    sched::CollectiveSpec spec;
    spec.collective = run.collective;
    spec.dtype = r.dtype;
    spec.ranks = run.ranks;
    spec.bytes = Bytes(r.bytes);
    auto predicted = predictor.predict(r.algorithm, spec);
    if (!predicted && predicted.error().code == Errc::Unsupported &&
        row_model(r.algorithm) == RowModel::OpenMpi) {
      std::string why = predicted.error().message;
      const std::string context = r.algorithm + ": ";
      if (why.rfind(context, 0) == 0) why.erase(0, context.size());
      auto it = std::find_if(left_out.begin(), left_out.end(),
                             [&why](const auto& p) { return p.first == why; });
      if (it == left_out.end()) {
        left_out.emplace_back(why, 1);
      } else {
        ++it->second;
      }
      continue;
    }
    TT_TRY(const auto pred, std::move(predicted));
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
  if (unmodelled != nullptr) {
    for (const auto& [why, sizes] : left_out) {
      unmodelled->push_back("rows of `mpi` at " + std::to_string(sizes) + " size" +
                            (sizes == 1 ? "" : "s") + " not compared: " + why);
    }
  }
  if (rows.empty()) {
    return fail(Errc::InvalidArgument,
                !left_out.empty()
                    ? "the measurement has no row with a model (" + left_out.front().first + ")"
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
