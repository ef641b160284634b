#pragma once
// data/nccl_model.json compiled into the binary (generated at build time by
// topology/embed_instances.cmake, reused): the one source of the NCCL model's parameters.

#include <cstddef>
#include <vector>

namespace topotune::algo::detail {

/// One embedded file: its stem ("nccl_model") and its text as chunks to concatenate.
struct EmbeddedNcclModel {
  const char* name;
  const char* const* chunks;
  std::size_t num_chunks;
};

/// data/nccl_model.json at build time (one entry).
std::vector<EmbeddedNcclModel> embedded_nccl_model_files();

}  // namespace topotune::algo::detail
