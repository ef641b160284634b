#include "cli/plan_emit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "core/assert.h"
#include "core/file_output.h"
#include "planning/emitted_stamp.h"
#include "planning/emitters.h"
#include "planning/sharded_emitters.h"

namespace topotune::cli {
namespace {

// Larger than any emitted file (the tuner plugin reads at most 1 MiB of rules): a bigger file
// in the way is not one of ours.
constexpr off_t kMaxEmittedBytes = 4 << 20;

// A file in the way of the set, and what it is.
struct Existing {
  std::string path;
  bool present = false;
  tune::EmittedState state = tune::EmittedState::Foreign;
};

// Reads `path` without following a link or blocking on a FIFO: anything but a small regular
// file is Foreign (and the writer refuses what is not a regular file on its own).
Existing inspect(const std::string& path) {
  Existing e{path};
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    e.present = errno != ENOENT;  // unreadable: in the way, as a foreign file
    return e;
  }
  e.present = true;
  if (!S_ISREG(st.st_mode) || st.st_size > kMaxEmittedBytes) return e;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return e;
  std::string text;
  char buf[8192];
  ssize_t n = 0;
  while ((n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) text.append(buf, static_cast<std::size_t>(n));
    if (static_cast<off_t>(text.size()) > kMaxEmittedBytes) break;
  }
  ::close(fd);
  if (n < 0 || static_cast<off_t>(text.size()) > kMaxEmittedBytes) return e;
  e.state = tune::emitted_state(text);
  return e;
}

Unexpected refuse(const std::vector<Existing>& in_the_way) {
  // One line: the error printer escapes newlines (a message may quote input).
  std::string list;
  for (const Existing& e : in_the_way) {
    list += (list.empty() ? " " : "; ") + e.path + ": " + tune::emitted_state_words(e.state);
  }
  return fail(Errc::Io,
              "--emit: refusing to replace or remove files topotune did not write as they are "
              "now (nothing was written):" +
                  list + ". Move them away, or give --force to replace them");
}

}  // namespace

Expected<EmitOutcome> write_emitted_files(const std::vector<tune::EmittedFile>& files,
                                          const std::vector<std::string>& names,
                                          const std::string& dir, bool force) {
  std::vector<PendingFile> pending;
  EmitOutcome outcome;
  std::vector<Existing> in_the_way;
  std::error_code ec;
  for (const std::string& name : names) {
    const std::string target = (std::filesystem::path(dir) / name).string();
    // A directory in the way would fail the rename after earlier files were renamed: refuse
    // before writing anything.
    if (std::filesystem::is_directory(target, ec)) {
      return fail(Errc::Io, "cannot write '" + target + "': it is a directory");
    }
    const auto f = std::find_if(files.begin(), files.end(),
                                [&name](const tune::EmittedFile& x) { return x.name == name; });
    const Existing e = inspect(target);
    if (e.present && e.state != tune::EmittedState::Unedited && !force) in_the_way.push_back(e);
    if (f != files.end()) {
      pending.push_back({target, f->content});
      outcome.written.push_back(target);
    } else if (e.present) {
      pending.push_back({target, "", true});  // stale: this plan does not write it
      outcome.removed.push_back(target);
    }
  }
  // Every file emit() writes is one of its kind's names: none is written unchecked.
  TT_ASSERT(outcome.written.size() == files.size(), "emit wrote a file outside its names");
  if (!in_the_way.empty()) return refuse(in_the_way);
  TT_TRY_VOID(write_files_atomically(pending));
  return outcome;
}

Expected<EmitOutcome> write_plan_files(const tune::Plan& plan, const std::string& kind,
                                       const std::string& dir, bool force) {
  TT_TRY(const std::vector<tune::EmittedFile> files, tune::emit(plan, kind));
  return write_emitted_files(files, tune::emitter_file_names(kind), dir, force);
}

Expected<EmitOutcome> write_plan_files(const tune::ShardedPlan& plan, const std::string& kind,
                                       const std::string& dir, bool force) {
  TT_TRY(const std::vector<tune::EmittedFile> files, tune::emit_sharded(plan, kind));
  return write_emitted_files(files, tune::sharded_emitter_file_names(kind), dir, force);
}

}  // namespace topotune::cli
