#include "planning/error_band.h"

#include <algorithm>
#include <vector>

#include "algorithms/nccl/nccl_system.h"

namespace topotune::tune {

ClusterBands::ClusterBands(const topo::ClusterSpec& spec, const algo::NcclVersion& nccl,
                           const ErrorBandTable& table)
    : table_(&table) {
  key_.nodes = nodes_bucket(spec.hosts);
  key_.nccl = release_bucket(nccl);
  // The NIC class as the NCCL model sees it; a cluster it cannot summarise keeps the overall
  // figure (its plan fails earlier in the NCCL timer anyway).
  const Expected<algo::NcclSystem> system = algo::nccl_system_from_cluster(spec);
  if (spec.hosts <= 1) {
    key_.nic_class = "none";
  } else if (system) {
    key_.nic_class = algo::nic_class_name(system->nic_class);
  }
}

std::string band_collective(sched::Collective c) {
  return c == sched::Collective::Allreduce ? "all_reduce" : "all_gather/reduce_scatter";
}

ClusterBands::ClusterBands(const algo::NcclSystem& system, const algo::NcclVersion& nccl,
                           sched::Collective collective, const ErrorBandTable& table)
    : table_(&table) {
  key_.collective = band_collective(collective);
  key_.nodes = nodes_bucket(system.nodes);
  key_.nccl = release_bucket(nccl);
  key_.nic_class = system.nodes <= 1 ? "none" : algo::nic_class_name(system.nic_class);
}

std::string ClusterBands::warning() const {
  return "no calibration log of this kind of cluster (NIC class " + key_.nic_class +
         "): its predictions are unvalidated, so every band is the widest one, " +
         figure(std::nullopt).source;
}

Seconds error_band(const Candidate& c, const ClusterBands& bands) {
  double band = 0;
  double covered = 0;
  for (const sim::BucketEvent& b : c.step.buckets) {
    const double busy = b.end.value - b.start.value;
    band += bands.figure(b.bytes).error * busy;
    covered += busy;
  }
  const double rest = std::max(0.0, c.step.comm_busy.value - covered);
  if (rest > 1e-9 * c.step.comm_busy.value) band += bands.figure(std::nullopt).error * rest;
  return Seconds(band);
}

std::string band_source(const Candidate& c, const ClusterBands& bands) {
  std::vector<std::string> seen;
  for (const sim::BucketEvent& b : c.step.buckets) {
    std::string s = bands.figure(b.bytes).source;
    if (std::find(seen.begin(), seen.end(), s) == seen.end()) seen.push_back(std::move(s));
  }
  if (seen.empty()) seen.push_back(bands.figure(std::nullopt).source);
  std::string out;
  for (const std::string& s : seen) out += (out.empty() ? "" : "; ") + s;
  return out;
}

}  // namespace topotune::tune
