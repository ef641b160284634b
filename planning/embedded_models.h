#pragma once
// The gradient profiles of data/models/*.json, compiled into the binary (generated at build
// time by topology/embed_instances.cmake, reused) so `--model bert-large` needs no data dir.

#include <vector>

#include "core/embedded_file.h"

namespace topotune::tune::detail {

/// Every data/models/*.json at build time, sorted by file name.
std::vector<EmbeddedFile> embedded_models();

}  // namespace topotune::tune::detail
