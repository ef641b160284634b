#pragma once
// Writing result files (--trace, --plot, calibrate -o, measure --out, plan --emit, emulate's
// files) so that a failure never leaves half a file behind and nothing but a regular file is
// ever replaced:
//
//  - check_output_path() runs before the work starts: the parent directory exists and is
//    writable; the target is absent or a regular file we may write. A symbolic link (even one
//    to a regular file), a directory, a device node (/dev/null, /dev/full), a FIFO or a socket
//    is refused, never followed or replaced.
//  - The content goes to a temporary file created exclusively (mkostemp: O_CREAT|O_EXCL, no
//    symlink can be planted under its random name) in the target's directory, is fsync'ed,
//    and renamed over the target only when complete. The target is checked again just before
//    the rename.
//  - A set of files is all or nothing: every file is staged first; the old files are kept as
//    hard links until every rename (or removal of a stale file of the set) has succeeded, and
//    put back if one fails.
//
// Refusals and failures are Errc::Io with the path in the message (exit status 2).

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/expected.h"

namespace topotune {

/// Checks, before any work, that `path` may be written by write_file_atomically: see above.
Expected<void> check_output_path(const std::string& path);

/// Checks, before any work, that `dir` is an existing directory we may create files in (the
/// files themselves are checked when they are known: plan --emit's names depend on the plan).
Expected<void> check_output_dir(const std::string& dir);

/// Writes `content` to `path` atomically (exclusive temp file + fsync + rename).
Expected<void> write_file_atomically(const std::string& path, const std::string& content);

/// One file of a set written all or none.
struct PendingFile {
  std::string path;
  std::string content;
  /// Remove `path` instead of writing it (a stale file of the set, e.g. an earlier plan's
  /// rules), in the same commit: put back if the set fails. Absent already: nothing to do.
  bool remove = false;
};

/// Called with i just before the i-th rename of write_files_atomically (tests use it to make
/// a rename fail half-way and check the rollback).
using BeforeRename = std::function<void(std::size_t)>;

/// Writes every file or none: checks and stages all, then renames (or, for a `remove` entry,
/// unlinks); if one fails the files already renamed or removed get their old content (or
/// absence) back and no temp file is left.
Expected<void> write_files_atomically(const std::vector<PendingFile>& files,
                                      const BeforeRename& before_rename = {});

}  // namespace topotune
