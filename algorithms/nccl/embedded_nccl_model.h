#pragma once
// data/nccl_model.json compiled into the binary (generated at build time by
// topology/embed_instances.cmake, reused): the one source of the NCCL model's parameters.

#include <vector>

#include "core/embedded_file.h"

namespace topotune::algo::detail {

/// data/nccl_model.json at build time (one entry).
std::vector<EmbeddedFile> embedded_nccl_model_files();

}  // namespace topotune::algo::detail
