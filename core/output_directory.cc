#include "core/output_directory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/file_output.h"

namespace topotune {

Expected<OutputDirectory> OutputDirectory::prepare(const std::string& dir) {
  if (dir.empty()) return fail(Errc::InvalidArgument, "the output directory is empty");
  bool created = false;
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 && errno == ENOENT) {
    if (::mkdir(dir.c_str(), 0777) != 0) {
      if (errno == ENOENT) {
        return fail(Errc::Io, "cannot create directory '" + dir +
                                  "': its parent does not exist (only the last component is "
                                  "created)");
      }
      return fail(Errc::Io, "cannot create directory '" + dir + "': " + std::strerror(errno));
    }
    created = true;
  }
  OutputDirectory out(dir, created);  // from here on, a failure removes what was created
  TT_TRY_VOID(check_output_dir(dir));
  return out;
}

OutputDirectory::OutputDirectory(OutputDirectory&& other) noexcept
    : path_(std::move(other.path_)), created_(other.created_) {
  other.created_ = false;
}

OutputDirectory& OutputDirectory::operator=(OutputDirectory&& other) noexcept {
  if (this != &other) {
    if (created_) ::rmdir(path_.c_str());
    path_ = std::move(other.path_);
    created_ = other.created_;
    other.created_ = false;
  }
  return *this;
}

OutputDirectory::~OutputDirectory() {
  // rmdir removes only an empty directory: files someone put there meanwhile stay.
  if (created_) ::rmdir(path_.c_str());
}

}  // namespace topotune
