#include "core/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace topotune {
namespace {

/// A file descriptor closed when it goes out of scope.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

std::string errno_text(int e) { return std::strerror(e); }

/// The parent's ends of the child's stdin (a socket: send(MSG_NOSIGNAL) cannot raise
/// SIGPIPE), stdout and stderr.
struct Streams {
  Fd in, out, err;
};

/// Starts the child with nothing open but its three standard descriptors: `child_std` (its
/// stdin, stdout, stderr) when given, the caller's own otherwise.
Expected<pid_t> spawn(const std::vector<std::string>& argv, const int* child_std) {
  posix_spawn_file_actions_t fa;
  ::posix_spawn_file_actions_init(&fa);
  if (child_std != nullptr) {
    for (int fd = 0; fd < 3; ++fd) ::posix_spawn_file_actions_adddup2(&fa, child_std[fd], fd);
  }
  ::posix_spawn_file_actions_addclosefrom_np(&fa, 3);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  ::posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return fail(Errc::NotFound, "cannot run " + argv[0] + ": " + errno_text(rc));
  return pid;
}

/// Starts the child with its standard descriptors on fresh pipes whose other ends go to
/// `parent`.
Expected<pid_t> spawn_piped(const std::vector<std::string>& argv, Streams& parent) {
  int in[2], out[2], err[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0)
    return fail(Errc::Io, "socketpair: " + errno_text(errno));
  Fd in_child(in[1]);
  parent.in.reset(in[0]);
  if (::pipe2(out, O_CLOEXEC) != 0) return fail(Errc::Io, "pipe: " + errno_text(errno));
  Fd out_child(out[1]);
  parent.out.reset(out[0]);
  if (::pipe2(err, O_CLOEXEC) != 0) return fail(Errc::Io, "pipe: " + errno_text(errno));
  Fd err_child(err[1]);
  parent.err.reset(err[0]);
  const int child_std[3] = {in_child.get(), out_child.get(), err_child.get()};
  return spawn(argv, child_std);
}

/// Appends what `fd` has to `sink`; closes it at end of file. False when past `limit`.
bool drain(Fd& fd, std::string& sink, std::size_t limit) {
  char buf[65536];
  const ssize_t n = ::read(fd.get(), buf, sizeof buf);
  if (n > 0) {
    sink.append(buf, static_cast<std::size_t>(n));
  } else if (n == 0 || errno != EINTR) {
    fd.reset();
  }
  return sink.size() <= limit;
}

/// Feeds stdin and collects stdout and stderr until the child has closed both.
Expected<void> pump(Streams& s, const ProgramInput& input, ProgramResult& r) {
  std::size_t sent = 0;
  if (input.stdin_data.empty()) s.in.reset();
  while (s.out.get() >= 0 || s.err.get() >= 0) {
    pollfd p[3] = {{s.in.get(), POLLOUT, 0}, {s.out.get(), POLLIN, 0}, {s.err.get(), POLLIN, 0}};
    if (::poll(p, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return fail(Errc::Io, "poll: " + errno_text(errno));
    }
    if (p[0].revents != 0) {
      const std::size_t left = input.stdin_data.size() - sent;
      const ssize_t n =
          ::send(s.in.get(), input.stdin_data.data() + sent, left, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) sent += static_cast<std::size_t>(n);
      // EPIPE: the child stopped reading; its exit status says whether that was a failure.
      if (sent == input.stdin_data.size() || (n < 0 && errno != EAGAIN && errno != EINTR))
        s.in.reset();
    }
    const bool within = (p[1].revents == 0 || drain(s.out, r.out, input.max_output)) &&
                        (p[2].revents == 0 || drain(s.err, r.err, input.max_output));
    if (!within) {
      return fail(Errc::Io,
                  "its output exceeds " + std::to_string(input.max_output >> 20) + " MiB");
    }
  }
  return {};
}

int wait_for(pid_t pid) {
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

}  // namespace

Expected<ProgramResult> run_program(const std::vector<std::string>& argv,
                                    const ProgramInput& input) {
  if (argv.empty() || argv[0].empty()) return fail(Errc::InvalidArgument, "no program to run");
  ProgramResult r;
  if (input.stdio == ProgramStdio::Inherit) {
    if (!input.stdin_data.empty())
      return fail(Errc::InvalidArgument, "stdin data for a child that inherits stdin");
    TT_TRY(const pid_t pid, spawn(argv, nullptr));
    r.exit_status = wait_for(pid);
    return r;
  }
  Streams s;
  TT_TRY(const pid_t pid, spawn_piped(argv, s));
  Expected<void> pumped = pump(s, input, r);
  if (!pumped) {
    ::kill(pid, SIGKILL);
    wait_for(pid);
    return Unexpected(std::move(pumped).error().context(argv[0]));
  }
  r.exit_status = wait_for(pid);
  return r;
}

}  // namespace topotune
