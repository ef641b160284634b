#pragma once
// `topotune instances --format markdown`: the catalog overview that docs/catalog.md carries
// between its generated-block markers (an overview table, the tagged figures and every
// unknown figure with its note), so the document is regenerated from the data, never edited.

#include <ostream>
#include <vector>

#include "topology/instance_spec.h"

namespace topotune::cli {

/// The marker lines around the generated block in docs/catalog.md.
inline constexpr const char* kCatalogBlockBegin =
    "<!-- BEGIN GENERATED: topotune instances --format markdown -->";
inline constexpr const char* kCatalogBlockEnd = "<!-- END GENERATED -->";

/// Writes the block's text (without the markers) for `all`, in the given order. Figures are in
/// the files' units (GBps per direction, Gbps per NIC).
void write_catalog_markdown(const std::vector<topo::InstanceSpec>& all, std::ostream& out);

}  // namespace topotune::cli
