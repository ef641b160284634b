#pragma once
// Private to topology/: the catalog files compiled into the library. The definition is
// generated at build time by embed_instances.cmake from data/instances/*.json.

#include <cstddef>
#include <vector>

namespace topotune::topo::detail {

/// One embedded file: its name (file stem) and its text as chunks to concatenate.
struct EmbeddedInstance {
  const char* name;
  const char* const* chunks;
  std::size_t num_chunks;
};

/// Every data/instances/*.json at build time, sorted by file name.
std::vector<EmbeddedInstance> embedded_instances();

}  // namespace topotune::topo::detail
