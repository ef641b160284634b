#pragma once
// The directory a set of output files goes into (plan --emit --out DIR, emulate up --dir DIR).
// Only its last component is created: `--out a/b/c` needs an existing `a/b` (a typo in a
// parent is an error, not a new tree), and a directory created here is removed again (if it is
// still empty) when the command fails, so a failed command leaves nothing behind. The
// directory is then checked like every output target (file_output.h: check_output_dir).

#include <string>

#include "core/expected.h"

namespace topotune {

/// An output directory made ready before the work starts; see above. Move-only.
class OutputDirectory {
 public:
  /// Creates `dir` if it is missing (mode 0777 & ~umask; its parent must exist) and checks it.
  /// An empty `dir` is Errc::InvalidArgument (an unset shell variable must not mean "/"
  /// or "."); everything else that fails is Errc::Io with the path and strerror.
  static Expected<OutputDirectory> prepare(const std::string& dir);

  OutputDirectory(OutputDirectory&& other) noexcept;
  OutputDirectory& operator=(OutputDirectory&& other) noexcept;
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;
  /// Removes the directory if prepare() created it, keep() was not called and it is empty.
  ~OutputDirectory();

  /// The command succeeded: the directory stays.
  void keep() { created_ = false; }
  const std::string& path() const { return path_; }
  /// Whether prepare() created the directory (and it has not been kept yet).
  bool created() const { return created_; }

 private:
  OutputDirectory(std::string path, bool created) : path_(std::move(path)), created_(created) {}

  std::string path_;
  bool created_ = false;
};

}  // namespace topotune
