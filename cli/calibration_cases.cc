#include "cli/calibration_cases.h"

#include "calibration/calibration_cases.h"
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

// Run i's NCCL rows (`m`: the run with only them) on its system: the node count from the
// options or the log, the NCCL version from the options ('' or none: the log's own), NCCL_ALGO
// from the options ('all': unrestricted).
Expected<tune::CalibrationCase> make_case(const CalibrationRuns& a, std::size_t i,
                                          const rt::Measurement& m, const std::string& file) {
  const std::size_t runs = a.logs.size() + a.measured.size();
  TT_TRY(const RunCluster rc, run_cluster(a, i, runs));
  TT_TRY(const algo::NcclSystem probe, resolve_nccl_system(rc.instance, 1, rc.cluster));
  TT_TRY(const int dflt_nodes, nodes_of(m, std::nullopt, probe.gpus_per_node));
  TT_TRY(const int nodes, nth(a.nodes, i, runs, "--nodes", dflt_nodes));
  TT_TRY(std::string ver, nth(a.versions, i, runs, "--nccl-version", std::string()));
  if (ver.empty()) ver = m.nccl_version.value_or("");
  TT_TRY(std::string algo_list, nth(a.algos, i, runs, "--nccl-algo", std::string()));
  if (algo_list == "all") algo_list.clear();
  TT_TRY(algo::NcclSystem system, resolve_nccl_system(rc.instance, nodes, rc.cluster));
  system.gpus_per_thread = m.gpus_per_thread.value_or(1);
  TT_TRY(tune::CalibrationCase c, tune::nccl_calibration_case(file, m, std::move(system)));
  TT_TRY(c.options, make_nccl_options(ver, algo_list, ""));
  return c;
}

// Run i's other rows (`m`: the run with only them) on its cluster (whose link parameters are
// the fit's start).
Expected<tune::LinkFitCase> make_link_case(const CalibrationRuns& a, std::size_t i,
                                           const rt::Measurement& m, const std::string& file) {
  const std::size_t runs = a.logs.size() + a.measured.size();
  TT_TRY(const RunCluster rc, run_cluster(a, i, runs));
  TT_TRY(const topo::ClusterSpec probe, resolve_cluster_spec(rc.instance, 1, rc.cluster));
  TT_TRY(const int dflt_nodes, nodes_of(m, std::nullopt, probe.instance.num_gpus));
  TT_TRY(const int nodes, nth(a.nodes, i, runs, "--nodes", dflt_nodes));
  TT_TRY(topo::ClusterSpec cluster, resolve_cluster_spec(rc.instance, nodes, rc.cluster));
  TT_TRY(tune::LinkFitCase c, tune::link_calibration_case(file, m, std::move(cluster)));
  TT_TRY(c.memory, simulation_budget());
  return c;
}

}  // namespace

Expected<CalibrationCases> load_calibration_cases(const CalibrationRuns& a) {
  CalibrationCases cases;
  for (std::size_t i = 0; i < a.logs.size() + a.measured.size(); ++i) {
    const bool is_log = i < a.logs.size();
    const std::string file = is_log ? a.logs[i] : a.measured[i - a.logs.size()];
    TT_TRY(const std::string coll_text,
           nth(a.collectives, i, a.logs.size() + a.measured.size(), "--collective", std::string()));
    TT_TRY(const std::optional<sched::Collective> coll, parse_collective_flag(coll_text));
    TT_TRY(const rt::Measurement m,
           load_measurement(is_log ? file : "", is_log ? "" : file, coll).context(file));
    const auto [nccl, links] = tune::split_by_model(m);
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
