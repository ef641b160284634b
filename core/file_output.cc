#include "core/file_output.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>

#include "core/temp_files.h"

namespace topotune {
namespace {

Unexpected cannot(const std::string& path, const std::string& why) {
  return fail(Errc::Io, "cannot write '" + path + "': " + why);
}

std::string errno_text() { return std::strerror(errno); }

std::string parent_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

const char* kind_of(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// The target as it is now: absent, or a regular file we may replace. Fills `existing`.
Expected<void> check_target(const std::string& path, struct stat* existing, bool& exists) {
  exists = false;
  if (::lstat(path.c_str(), existing) != 0) {
    if (errno == ENOENT) return {};
    return cannot(path, errno_text());
  }
  const mode_t m = existing->st_mode;
  if (S_ISLNK(m)) return cannot(path, "it is a symbolic link (output files are never followed)");
  if (S_ISDIR(m)) return cannot(path, "it is a directory");
  if (!S_ISREG(m)) {
    return cannot(
        path, std::string("it is ") + kind_of(m) + ", not a regular file (refusing to replace it)");
  }
  if (::access(path.c_str(), W_OK) != 0) return cannot(path, "it is read-only");
  exists = true;
  return {};
}

Expected<void> write_all(int fd, const std::string& content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(Errc::Io, n < 0 ? errno_text() : "short write");
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) return fail(Errc::Io, errno_text());
  return {};
}

mode_t current_umask() {
  const mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

/// One file of a set on its way: its exclusive temp file and, once kept, the old content.
struct Staged {
  std::string tmp;
  std::string old;          ///< hard link to the file being replaced ("" if there was none)
  TempFileGuard on_signal;  ///< removes `tmp` on SIGINT/SIGTERM/SIGHUP
};

/// The temp file's name and its registration for removal on a signal.
struct TempFile {
  std::string path;
  TempFileGuard on_signal;
};

/// Writes `f` to a new temp file next to its target; the temp file gets the target's mode
/// (or the umask's default for a new file).
Expected<TempFile> stage(const PendingFile& f) {
  struct stat st {};
  bool exists = false;
  TT_TRY_VOID(check_target(f.path, &st, exists));
  const std::string name = std::filesystem::path(f.path).filename().string().substr(0, 200);
  std::string tmp =
      (std::filesystem::path(parent_of(f.path)) / ("." + name + ".tmp.XXXXXX")).string();
  int fd = -1;
  std::optional<TempFileGuard> guard;
  {
    const DeferTerminationSignals defer;  // no window between creating and registering it
    fd = ::mkostemp(tmp.data(), O_CLOEXEC);
    if (fd >= 0) guard.emplace(tmp);
  }
  if (fd < 0) return cannot(f.path, "creating a temporary file: " + errno_text());
  const mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~current_umask());
  Expected<void> written = write_all(fd, f.content);
  if (written && ::fchmod(fd, mode) != 0) written = fail(Errc::Io, errno_text());
  if (::close(fd) != 0 && written) written = fail(Errc::Io, errno_text());
  if (!written) {
    ::unlink(tmp.c_str());
    return cannot(f.path, written.error().message);
  }
  return TempFile{std::move(tmp), std::move(*guard)};
}

void remove_staged(const std::vector<Staged>& staged) {
  for (const Staged& s : staged) {
    if (!s.tmp.empty()) ::unlink(s.tmp.c_str());
    if (!s.old.empty()) ::unlink(s.old.c_str());
  }
}

/// Exclusive flock()s on the directories of a set, held while it is committed, so that two
/// writers into one directory commit one set after the other, never interleaved.
class DirectoryLocks {
 public:
  DirectoryLocks() = default;
  DirectoryLocks(const DirectoryLocks&) = delete;
  DirectoryLocks& operator=(const DirectoryLocks&) = delete;
  ~DirectoryLocks() {
    for (const int fd : fds_) ::close(fd);  // releases the lock
  }
  /// Locks `dir` (waiting for another writer's commit). A file system without flock()
  /// (ENOLCK, EOPNOTSUPP) is written unlocked rather than not at all.
  Expected<void> lock(const std::string& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return fail(Errc::Io, "cannot lock directory '" + dir + "': " + errno_text());
    fds_.push_back(fd);
    int r = 0;
    while ((r = ::flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (r != 0 && errno != ENOLCK && errno != EOPNOTSUPP)
      return fail(Errc::Io, "cannot lock directory '" + dir + "': " + errno_text());
    return {};
  }

 private:
  std::vector<int> fds_;
};

void sync_directory(const std::string& path) {
  const int fd = ::open(parent_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);  // durability of the renames; the files themselves are already synced
  ::close(fd);
}

/// Keeps each existing target under a hard link, so that a failed set can be put back.
Expected<void> keep_old(const std::vector<PendingFile>& files, std::vector<Staged>& staged) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    struct stat st {};
    bool exists = false;
    TT_TRY_VOID(check_target(files[i].path, &st, exists));
    if (!exists) continue;
    const std::string old = staged[i].tmp + ".old";
    if (::link(files[i].path.c_str(), old.c_str()) != 0)
      return cannot(files[i].path, "keeping the old file until all are written: " + errno_text());
    staged[i].old = old;
  }
  return {};
}

/// Puts back the targets 0..count-1 as they were before the set was committed.
void roll_back(const std::vector<PendingFile>& files, std::vector<Staged>& staged,
               std::size_t count) {
  for (std::size_t j = 0; j < count; ++j) {
    if (staged[j].old.empty()) {
      // A removal of an absent file changed nothing; a new file goes away again.
      if (!files[j].remove) ::unlink(files[j].path.c_str());
    } else if (::rename(staged[j].old.c_str(), files[j].path.c_str()) == 0) {
      staged[j].old.clear();
    }
  }
}

// Renames file i's temp file over its target, or removes the target of a `remove` entry
// (its old content is kept by keep_old, its temp file only named the kept link).
Expected<void> commit_one(const PendingFile& f, Staged& s) {
  struct stat st {};
  bool exists = false;
  TT_TRY_VOID(check_target(f.path, &st, exists));  // it may have changed
  if (f.remove) {
    if (exists && ::unlink(f.path.c_str()) != 0) return cannot(f.path, errno_text());
    return {};
  }
  if (::rename(s.tmp.c_str(), f.path.c_str()) != 0) return cannot(f.path, errno_text());
  s.tmp.clear();  // the name is now the target's
  return {};
}

bool any_removal(const std::vector<PendingFile>& files) {
  for (const PendingFile& f : files) {
    if (f.remove) return true;
  }
  return false;
}

Expected<void> commit(const std::vector<PendingFile>& files, std::vector<Staged>& staged,
                      const BeforeRename& before_rename) {
  if (files.size() > 1 || any_removal(files)) TT_TRY_VOID(keep_old(files, staged));
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (before_rename) before_rename(i);
    if (Expected<void> ok = commit_one(files[i], staged[i]); !ok) {
      roll_back(files, staged, i);
      return ok;
    }
  }
  for (const PendingFile& f : files) sync_directory(f.path);
  return {};
}

}  // namespace

Expected<void> check_output_dir(const std::string& dir) {
  if (dir.empty()) return fail(Errc::InvalidArgument, "the output directory is empty");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    return fail(Errc::Io, "directory '" + dir + "': " + errno_text());
  if (!S_ISDIR(st.st_mode)) return fail(Errc::Io, "'" + dir + "' is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return fail(Errc::Io, "directory '" + dir + "' is not writable: " + errno_text());
  return {};
}

Expected<void> check_output_path(const std::string& path) {
  if (path.empty()) return fail(Errc::InvalidArgument, "the output path is empty");
  struct stat st {};
  bool exists = false;
  TT_TRY_VOID(check_target(path, &st, exists));
  return check_output_dir(parent_of(path)).context("cannot write '" + path + "'");
}

Expected<void> write_files_atomically(const std::vector<PendingFile>& files,
                                      const BeforeRename& before_rename) {
  for (const PendingFile& f : files) TT_TRY_VOID(check_output_path(f.path));
  std::vector<Staged> staged;
  for (const PendingFile& f : files) {
    Expected<TempFile> tmp = stage(f);
    if (!tmp) {
      remove_staged(staged);
      return Unexpected(std::move(tmp).error());
    }
    staged.push_back({std::move(tmp->path), "", std::move(tmp->on_signal)});
  }
  std::set<std::string> dirs;  // sorted: two writers lock shared directories in one order
  for (const PendingFile& f : files) dirs.insert(parent_of(f.path));
  DirectoryLocks locks;
  for (const std::string& dir : dirs) {
    if (Expected<void> l = locks.lock(dir); !l) {
      remove_staged(staged);
      return l;
    }
  }
  // SIGINT/SIGTERM/SIGHUP wait until the set is renamed (or rolled back) and the temp and
  // old files are gone: an interrupted commit would leave a mix of old and new files.
  const DeferTerminationSignals defer;
  Expected<void> done = commit(files, staged, before_rename);
  remove_staged(staged);  // temp files not renamed, and the old files kept for a rollback
  staged.clear();         // unregistered while the signals still wait
  return done;
}

Expected<void> write_file_atomically(const std::string& path, const std::string& content) {
  return write_files_atomically({PendingFile{path, content}});
}

}  // namespace topotune
