#pragma once
// Writing result files so that a failure never leaves half a file behind: content goes to a
// temporary file in the same directory, which is renamed over the target only when complete.

#include <string>
#include <vector>

#include "core/expected.h"

namespace topotune::cli {

/// Writes `content` to `path` atomically (temp file + rename). Errors name the path.
Expected<void> write_file_atomically(const std::string& path, const std::string& content);

/// A set of files that are all written, or none is: every file is staged first, then renamed.
struct PendingFile {
  std::string path;
  std::string content;
};
Expected<void> write_files_atomically(const std::vector<PendingFile>& files);

}  // namespace topotune::cli
