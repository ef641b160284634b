#pragma once
// The gradient profiles of data/models/*.json, compiled into the binary (generated at build
// time by topology/embed_instances.cmake, reused) so `--model bert-large` needs no data dir.

#include <cstddef>
#include <vector>

namespace topotune::tune::detail {

/// One embedded profile: its file stem ("bert-large") and its text as chunks to concatenate.
struct EmbeddedModel {
  const char* name;
  const char* const* chunks;
  std::size_t num_chunks;
};

/// Every data/models/*.json at build time, sorted by file name.
std::vector<EmbeddedModel> embedded_models();

}  // namespace topotune::tune::detail
