#include "cli/calibration_cases.h"

#include "autotune/validation.h"
#include "cli/algorithm_flags.h"
#include "cli/nccl_common.h"

namespace topotune::cli {
namespace {

/// The i-th of a per-run option list: one value applies to every run.
template <class T>
Expected<T> nth(const std::vector<T>& v, std::size_t i, std::size_t runs, const char* flag,
                T dflt) {
  if (v.empty()) return dflt;
  if (v.size() == 1) return v[0];
  if (v.size() != runs) {
    return fail(Errc::InvalidArgument, std::string(flag) + " needs one value or one per run");
  }
  return v[i];
}

/// Run i's instance and cluster file (either may be empty, not both).
struct RunCluster {
  std::string instance, cluster;
};

Expected<RunCluster> run_cluster(const CalibrationRuns& a, std::size_t i, std::size_t runs) {
  RunCluster rc;
  TT_TRY(rc.instance, nth(a.instances, i, runs, "--instance", std::string()));
  TT_TRY(rc.cluster, nth(a.clusters, i, runs, "--cluster", std::string()));
  return rc;
}

Expected<tune::CalibrationCase> make_case(const CalibrationRuns& a, std::size_t i,
                                          const rt::Measurement& m, const std::string& file) {
  const std::size_t runs = a.logs.size() + a.measured.size();
  TT_TRY(const RunCluster rc, run_cluster(a, i, runs));
  const std::string& inst = rc.instance;
  TT_TRY(const algo::NcclSystem probe, resolve_nccl_system(inst, 1, rc.cluster));
  TT_TRY(const int dflt_nodes, nodes_of(m, std::nullopt, probe.gpus_per_node));
  TT_TRY(const int nodes, nth(a.nodes, i, runs, "--nodes", dflt_nodes));
  TT_TRY(std::string ver, nth(a.versions, i, runs, "--nccl-version", std::string()));
  if (ver.empty()) ver = m.nccl_version.value_or("");  // '' for a run: the log's own
  TT_TRY(std::string algo_list, nth(a.algos, i, runs, "--nccl-algo", std::string()));
  if (algo_list == "all") algo_list.clear();
  tune::CalibrationCase c;
  c.name = file;
  TT_TRY(c.system, resolve_nccl_system(inst, nodes, rc.cluster));
  c.system.gpus_per_thread = m.gpus_per_thread.value_or(1);
  if (c.system.ranks() != m.ranks) {
    return fail(Errc::InvalidArgument,
                file + ": " + std::to_string(m.ranks) + " ranks in the log, " +
                    std::to_string(c.system.ranks()) + " in " + c.system.instance);
  }
  TT_TRY(c.options, make_nccl_options(ver, algo_list, ""));
  c.collective = m.collective;
  for (const rt::MeasurementRow& r : m.rows) c.points.push_back({Bytes(r.bytes), r.time_us});
  return c;
}

/// A run of topotune's own algorithms: its cluster (the link parameters' start) and points.
Expected<tune::LinkFitCase> make_link_case(const CalibrationRuns& a, std::size_t i,
                                           const rt::Measurement& m, const std::string& file) {
  const std::size_t runs = a.logs.size() + a.measured.size();
  TT_TRY(const RunCluster rc, run_cluster(a, i, runs));
  TT_TRY(const topo::ClusterSpec probe, resolve_cluster_spec(rc.instance, 1, rc.cluster));
  TT_TRY(const int dflt_nodes, nodes_of(m, std::nullopt, probe.instance.num_gpus));
  TT_TRY(const int nodes, nth(a.nodes, i, runs, "--nodes", dflt_nodes));
  tune::LinkFitCase c;
  c.name = file;
  TT_TRY(c.cluster, resolve_cluster_spec(rc.instance, nodes, rc.cluster));
  const int ranks = c.cluster.hosts * c.cluster.instance.num_gpus;
  if (ranks != m.ranks) {
    return fail(Errc::InvalidArgument, file + ": " + std::to_string(m.ranks) + " ranks measured, " +
                                           std::to_string(ranks) + " in " +
                                           c.cluster.instance.name);
  }
  c.channels = m.channels.value_or(1);
  c.chunks = m.chunks.value_or(1);
  TT_TRY(c.memory, simulation_budget());
  c.collective = m.collective;
  for (const rt::MeasurementRow& r : m.rows) {
    c.points.push_back({r.algorithm, Bytes(r.bytes), r.dtype, r.time_us});
  }
  return c;
}

/// Splits a run by model: `nccl` rows go to the NCCL fit, the others to the link fit.
std::pair<rt::Measurement, rt::Measurement> split_rows(const rt::Measurement& m) {
  rt::Measurement nccl = m, links = m;
  nccl.rows.clear();
  links.rows.clear();
  for (const rt::MeasurementRow& r : m.rows) {
    (tune::row_model(r.algorithm) == tune::RowModel::Nccl ? nccl : links).rows.push_back(r);
  }
  return {nccl, links};
}

}  // namespace

Expected<CalibrationCases> load_calibration_cases(const CalibrationRuns& a) {
  CalibrationCases cases;
  for (std::size_t i = 0; i < a.logs.size() + a.measured.size(); ++i) {
    const bool is_log = i < a.logs.size();
    const std::string file = is_log ? a.logs[i] : a.measured[i - a.logs.size()];
    TT_TRY(const rt::Measurement m,
           load_measurement(is_log ? file : "", is_log ? "" : file).context(file));
    const auto [nccl, links] = split_rows(m);
    if (!nccl.rows.empty()) {
      TT_TRY(tune::CalibrationCase c, make_case(a, i, nccl, file));
      cases.nccl.push_back(std::move(c));
    }
    if (!links.rows.empty()) {
      TT_TRY(tune::LinkFitCase c, make_link_case(a, i, links, file).context(file));
      cases.links.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace topotune::cli
