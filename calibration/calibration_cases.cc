#include "calibration/calibration_cases.h"

namespace topotune::tune {

std::pair<rt::Measurement, rt::Measurement> split_by_model(const rt::Measurement& run) {
  rt::Measurement nccl = run, links = run;
  nccl.rows.clear();
  links.rows.clear();
  for (const rt::MeasurementRow& r : run.rows) {
    (row_model(r.algorithm) == RowModel::Nccl ? nccl : links).rows.push_back(r);
  }
  return {std::move(nccl), std::move(links)};
}

Expected<CalibrationCase> nccl_calibration_case(const std::string& name, const rt::Measurement& run,
                                                algo::NcclSystem system) {
  if (system.ranks() != run.ranks) {
    return fail(Errc::InvalidArgument, name + ": " + std::to_string(run.ranks) +
                                           " ranks in the log, " + std::to_string(system.ranks()) +
                                           " in " + system.instance);
  }
  CalibrationCase c;
  c.name = name;
  c.system = std::move(system);
  c.collective = run.collective;
  for (const rt::MeasurementRow& r : run.rows) c.points.push_back({Bytes(r.bytes), r.time_us});
  return c;
}

Expected<LinkFitCase> link_calibration_case(const std::string& name, const rt::Measurement& run,
                                            topo::ClusterSpec cluster) {
  const int ranks = cluster.hosts * cluster.instance.num_gpus;
  if (ranks != run.ranks) {
    return fail(Errc::InvalidArgument, name + ": " + std::to_string(run.ranks) +
                                           " ranks measured, " + std::to_string(ranks) + " in " +
                                           cluster.instance.name);
  }
  LinkFitCase c;
  c.name = name;
  c.cluster = std::move(cluster);
  c.channels = run.channels.value_or(1);
  c.chunks = run.chunks.value_or(1);
  c.collective = run.collective;
  for (const rt::MeasurementRow& r : run.rows) {
    c.points.push_back({r.algorithm, Bytes(r.bytes), r.dtype, r.time_us});
  }
  return c;
}

}  // namespace topotune::tune
