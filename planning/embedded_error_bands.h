#pragma once
// data/error_bands.json compiled into the binary (generated at build time by
// topology/embed_instances.cmake, reused): the held-out error per kind of cluster.

#include <vector>

#include "core/embedded_file.h"

namespace topotune::tune::detail {

/// data/error_bands.json at build time (one entry).
std::vector<EmbeddedFile> embedded_error_bands();

}  // namespace topotune::tune::detail
