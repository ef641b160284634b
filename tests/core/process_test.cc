#include "core/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/lib/temp_dir.h"

namespace topotune {
namespace {

namespace fs = std::filesystem;

using TempDir = test_support::TempDir;

TEST(RunProgram, FeedsStdinAndCollectsStdout) {
  // 4 MiB: far more than a pipe buffer, so stdin and stdout must be pumped together.
  std::string data(std::size_t{4} << 20, 'x');
  for (std::size_t i = 0; i < data.size(); i += 997) data[i] = static_cast<char>('a' + i % 26);
  ProgramInput in;
  in.stdin_data = data;
  const auto r = run_program({"cat"}, in);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_status, 0);
  EXPECT_TRUE(r->out == data);
  EXPECT_TRUE(r->err.empty());
}

TEST(RunProgram, ArgumentsAreNeverInterpretedByAShell) {
  const TempDir dir{"topotune-process"};
  const std::string pwned = (dir.path() / "PWNED").string();
  // Each vector element arrives as one argument: quotes, ';', '$(...)' and newlines are text.
  const std::string hostile =
      "x';touch " + pwned + ";'$(touch " + pwned + ")`touch " + pwned + "`\ntouch " + pwned;
  const auto r = run_program({"printf", "%s|", hostile, "second"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_status, 0);
  EXPECT_EQ(r->out, hostile + "|second|");
  EXPECT_FALSE(fs::exists(pwned));
}

TEST(RunProgram, ReportsExitStatusAndStderr) {
  const auto r = run_program({"sh", "-c", "echo oops >&2; exit 3"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_status, 3);
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(r->err, "oops\n");
  const auto killed = run_program({"sh", "-c", "kill -9 $$"});
  ASSERT_TRUE(killed);
  EXPECT_EQ(killed->exit_status, 128 + 9);
}

TEST(RunProgram, MissingProgramIsNotFound) {
  const auto r = run_program({"topotune-no-such-program-18"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::NotFound);
  EXPECT_NE(r.error().message.find("cannot run topotune-no-such-program-18"), std::string::npos)
      << r.error().message;
  EXPECT_FALSE(run_program({}));
}

TEST(RunProgram, ChildIgnoringStdinRaisesNoSigpipe) {
  // `true` exits without reading: writing 8 MiB to it would kill a caller with SIGPIPE.
  ProgramInput in;
  in.stdin_data.assign(std::size_t{8} << 20, 'y');
  const auto r = run_program({"true"}, in);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_status, 0);
}

TEST(RunProgram, OutputPastTheLimitIsAnError) {
  ProgramInput in;
  in.max_output = std::size_t{1} << 20;
  const auto r = run_program({"head", "-c", "3000000", "/dev/zero"}, in);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::Io);
  EXPECT_NE(r.error().message.find("exceeds 1 MiB"), std::string::npos) << r.error().message;
}

TEST(RunProgram, ChildInheritsOnlyTheStandardDescriptors) {
  const int fd = ::open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(fd, 0);
  const int high = ::dup2(fd, 57);
  ASSERT_EQ(high, 57);
  const auto r = run_program({"ls", "/proc/self/fd"});
  ::close(fd);
  ::close(high);
  ASSERT_TRUE(r) << r.error().message;
  // ls itself holds 0, 1, 2 and the directory it lists (3).
  EXPECT_EQ(r->out, "0\n1\n2\n3\n");
}

/// Points this process's stdin at a file holding `input` and its stdout at a fresh file for
/// the scope's lifetime (the child of an Inherit run sees exactly these), then puts them back.
class RedirectedStdio {
 public:
  RedirectedStdio(const fs::path& dir, const std::string& input) : out_path_(dir / "out") {
    const fs::path in_path = dir / "in";
    {
      std::FILE* f = std::fopen(in_path.c_str(), "w");
      TT_ASSERT(f != nullptr, "fopen");
      std::fputs(input.c_str(), f);
      std::fclose(f);
    }
    std::fflush(stdout);
    saved_in_ = ::dup(STDIN_FILENO);
    saved_out_ = ::dup(STDOUT_FILENO);
    const int in = ::open(in_path.c_str(), O_RDONLY | O_CLOEXEC);
    const int out = ::open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    TT_ASSERT(in >= 0 && out >= 0 && saved_in_ >= 0 && saved_out_ >= 0, "open");
    ::dup2(in, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::close(in);
    ::close(out);
  }
  ~RedirectedStdio() { restore(); }
  RedirectedStdio(const RedirectedStdio&) = delete;
  RedirectedStdio& operator=(const RedirectedStdio&) = delete;

  /// Restores stdin and stdout and returns what was written to stdout meanwhile.
  std::string restore() {
    if (saved_out_ >= 0) {
      ::dup2(saved_in_, STDIN_FILENO);
      ::dup2(saved_out_, STDOUT_FILENO);
      ::close(saved_in_);
      ::close(saved_out_);
      saved_in_ = saved_out_ = -1;
    }
    std::ifstream f(out_path_);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }

 private:
  fs::path out_path_;
  int saved_in_ = -1;
  int saved_out_ = -1;
};

TEST(RunProgram, InheritModeUsesTheCallersStdinAndStdout) {
  const TempDir dir{"topotune-process"};
  RedirectedStdio io(dir.path(), "from the caller's stdin\n");
  ProgramInput in;
  in.stdio = ProgramStdio::Inherit;
  const auto r = run_program({"sh", "-c", "cat; echo done; exit 5"}, in);
  const std::string printed = io.restore();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_status, 5);
  EXPECT_EQ(printed, "from the caller's stdin\ndone\n");
  EXPECT_TRUE(r->out.empty());
}

TEST(RunProgram, InheritModeStillClosesEveryOtherDescriptor) {
  const TempDir dir{"topotune-process"};
  const int fd = ::open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::dup2(fd, 57), 57);
  RedirectedStdio io(dir.path(), "");
  ProgramInput in;
  in.stdio = ProgramStdio::Inherit;
  const auto r = run_program({"ls", "/proc/self/fd"}, in);
  const std::string printed = io.restore();
  ::close(fd);
  ::close(57);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(printed, "0\n1\n2\n3\n");
}

TEST(RunProgram, InheritModeRefusesStdinData) {
  ProgramInput in;
  in.stdio = ProgramStdio::Inherit;
  in.stdin_data = "x";
  const auto r = run_program({"true"}, in);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::InvalidArgument);
}

}  // namespace
}  // namespace topotune
