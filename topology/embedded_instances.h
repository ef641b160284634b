#pragma once
// Private to topology/: the catalog files compiled into the library. The definition is
// generated at build time by embed_instances.cmake from data/instances/*.json.

#include <vector>

#include "core/embedded_file.h"

namespace topotune::topo::detail {

/// Every data/instances/*.json at build time, sorted by file name.
std::vector<EmbeddedFile> embedded_instances();

}  // namespace topotune::topo::detail
