#pragma once
// A fresh empty directory under the system's temp directory, removed with everything in it when
// the test ends. For tests of code that writes files.

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "core/assert.h"

namespace topotune::test_support {

class TempDir {
 public:
  /// `prefix` names the directory (prefix-XXXXXX) so a leftover says which test made it.
  explicit TempDir(const std::string& prefix = "topotune-test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    TT_ASSERT(::mkdtemp(tmpl.data()) != nullptr, "mkdtemp");
    path_ = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace topotune::test_support
