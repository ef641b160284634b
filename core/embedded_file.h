#pragma once
// A data file compiled into the binary by topology/embed_instances.cmake (the instance catalog,
// the gradient profiles, the NCCL model's parameters): its name and its text, split into
// literals short enough for -Wpedantic (no literal over 65,536 bytes).

#include <cstddef>
#include <string>

namespace topotune {

/// One embedded file: its name (file stem) and its text as chunks to concatenate.
struct EmbeddedFile {
  const char* name;
  const char* const* chunks;
  std::size_t num_chunks;

  /// The file's whole text.
  std::string text() const {
    std::string out;
    for (std::size_t i = 0; i < num_chunks; ++i) out += chunks[i];
    return out;
  }
};

}  // namespace topotune
