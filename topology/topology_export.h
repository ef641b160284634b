#pragma once
// Topology export for `topotune topo`: a JSON document scripts can read, a Graphviz DOT
// picture of one host plus the network tier, and the list of unknown figures with the model
// defaults that replace them. The library returns text; cli/ writes it.

#include <string>
#include <string_view>
#include <vector>

#include "topology/topology.h"

namespace topotune::topo {

/// A figure the catalog marks unknown (or the file omits) and what the model uses instead.
struct UnknownFigure {
  std::string figure;         ///< JSON path, e.g. "host.cpu_reduce_GBps"
  std::string note;           ///< why it is unknown (from the file)
  std::string model_default;  ///< what the model uses, in words with the value
};

/// The unknown figures of the topology's instance, in file order.
std::vector<UnknownFigure> unknown_figures(const Topology& topo);

/// Per host, GPUs joined by NVLink (connected components of >= 2 GPUs) and the smallest
/// per-GPU NVLink bandwidth (nominal, per direction) among them.
struct NvLinkDomain {
  std::vector<int> gpus;  ///< local GPU indices
  BytesPerSec per_gpu_bandwidth;
};
std::vector<NvLinkDomain> nvlink_domains(const Topology& topo);

/// One link class as the topology uses it: its directed links (a full-duplex cable is two),
/// their distinct nominal rates per direction, and the class's efficiency and per-hop latency
/// (ClusterSpec::params, the model's assumptions or a calibration's).
struct LinkClassSummary {
  LinkKind kind = LinkKind::Pcie;
  int links = 0;
  std::vector<BytesPerSec> nominal;  ///< distinct, ascending
  double efficiency = 0;
  Seconds latency{0};
};

/// The classes that have at least one link, in LinkKind order.
std::vector<LinkClassSummary> link_classes(const Topology& topo);

/// The JSON document of `topotune topo --format json` (keys in docs/cluster.md).
std::string topology_to_json(const Topology& topo);

/// Peak memory of topology_to_json and of printing its text, estimated before building it:
/// the JSON tree cannot be unwound once an allocation fails (nlohmann's destructor allocates,
/// so std::bad_alloc there terminates). 1,200 bytes per link and per device: peak RSS of
/// `topo --instance p5.48xlarge --nodes 4096 --format json` minus that of `--format table`
/// was 985 MB for 731,136 links and 164,961 devices (1,099 bytes each).
Bytes topology_json_memory(const Topology& topo);

/// A Graphviz DOT graph: host 0 in detail, the other hosts as one box, ToRs and spine.
/// Every name is written through dot_quote, so a name from a cluster file cannot end its
/// string or add statements.
std::string topology_to_dot(const Topology& topo);

/// `text` as a DOT double-quoted string: `"` and `\` escaped, line breaks as DOT's `\n`,
/// other control characters as spaces.
std::string dot_quote(std::string_view text);

}  // namespace topotune::topo
