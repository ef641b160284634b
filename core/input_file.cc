#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace topotune {
namespace {

std::string mib_text(std::int64_t bytes) {
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

Unexpected too_large(const std::string& what, const std::string& path, Bytes limit,
                     const std::string& size) {
  return fail(Errc::InvalidArgument,
              what + " '" + path + "' is " + size + ", more than the " + mib_text(limit.value) +
                  " limit on an input file (raise it with TOPOTUNE_MAX_INPUT_MB=N, in MiB; "
                  "see docs/limits.md)");
}

// Closes the descriptor on every path out of read_input_file.
struct FdGuard {
  int fd;
  ~FdGuard() { ::close(fd); }
};

}  // namespace

Expected<Bytes> max_input_bytes() {
  const char* env = std::getenv("TOPOTUNE_MAX_INPUT_MB");
  if (env == nullptr || *env == '\0') return Bytes(kDefaultMaxInputMiB << 20);
  const std::string_view text(env);
  std::int64_t mib = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), mib);
  constexpr std::int64_t kMaxMiB = std::int64_t{1} << 20;  // 1 TiB: far past any real input
  if (ec != std::errc() || ptr != text.data() + text.size() || mib < 1 || mib > kMaxMiB) {
    return fail(Errc::InvalidArgument, "TOPOTUNE_MAX_INPUT_MB='" + std::string(text) +
                                           "' is not a whole number of MiB from 1 to 1048576");
  }
  return Bytes(mib << 20);
}

Expected<std::string> read_input_file(const std::string& path, const std::string& what,
                                      Bytes limit) {
  TT_ASSERT(limit.value > 0, "input limit must be positive");
  // A FIFO blocks here until its writer opens it, as `cat` does; it is then read once.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    const Errc code = err == ENOENT ? Errc::NotFound : Errc::Io;
    return fail(code, "cannot read " + what + " '" + path + "': " + std::strerror(err));
  }
  FdGuard guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return fail(Errc::Io, "cannot read " + what + " '" + path + "': " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    return fail(Errc::Io, "cannot read " + what + " '" + path + "': is a directory");
  }
  const bool regular = S_ISREG(st.st_mode);
  if (regular && st.st_size > limit.value) {
    return too_large(what, path, limit, mib_text(st.st_size));
  }
  std::string text;
  text.reserve(regular ? static_cast<std::size_t>(st.st_size) : 0);
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return fail(Errc::Io, "error reading " + what + " '" + path + "': " + std::strerror(errno));
    }
    if (n == 0) break;
    if (static_cast<std::int64_t>(text.size()) + n > limit.value) {
      return too_large(what, path, limit, "more than " + mib_text(limit.value));
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

Expected<std::string> read_input_file(const std::string& path, const std::string& what) {
  TT_TRY(const Bytes limit, max_input_bytes());
  return read_input_file(path, what, limit);
}

}  // namespace topotune
