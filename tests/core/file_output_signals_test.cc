// The safe writer under concurrency and signals (core/file_output.h, core/temp_files.h): two
// writers into one directory commit one whole set after the other, a SIGTERM during a commit
// waits until the set is complete, and a signal removes the registered temp files.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <set>
#include <sstream>
#include <string>

#include "core/file_output.h"
#include "core/output_directory.h"
#include "core/temp_files.h"
#include "tests/lib/temp_dir.h"

namespace topotune {
namespace {

namespace fs = std::filesystem;

class FileOutputSignals : public ::testing::Test {
 protected:
  std::string at(const std::string& name) const { return (dir_.path() / name).string(); }
  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::set<std::string> names() const {
    std::set<std::string> n;
    for (const auto& e : fs::directory_iterator(dir_.path()))
      n.insert(e.path().filename().string());
    return n;
  }
  std::vector<PendingFile> set_of(const std::string& who) const {
    return {{at("a"), who}, {at("b"), who}, {at("c"), who}};
  }
  /// Runs `child` in a forked process; returns its wait status.
  static int in_child(const std::function<void()>& child) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      child();
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
  }

  test_support::TempDir dir_{"topotune-signals"};
};

TEST_F(FileOutputSignals, ASecondWriterWaitsForTheFirstCommit) {
  // Writer A stops after its first rename and gives writer B up to 2 s to run. Without the
  // directory lock B commits meanwhile and A's last renames leave a mix of A and B; with it,
  // B waits for A's commit and then replaces the whole set.
  std::future<Expected<void>> b;
  const auto a = write_files_atomically(set_of("A"), [&](std::size_t i) {
    if (i != 1) return;
    b = std::async(std::launch::async, [&] { return write_files_atomically(set_of("B")); });
    b.wait_for(std::chrono::seconds(2));
  });
  ASSERT_TRUE(a);
  ASSERT_TRUE(b.get());
  EXPECT_EQ(read(at("a")) + read(at("b")) + read(at("c")), "BBB");
  EXPECT_EQ(names(), (std::set<std::string>{"a", "b", "c"}));
}

TEST_F(FileOutputSignals, ASigtermDuringTheCommitWaitsForTheWholeSet) {
  ASSERT_TRUE(write_files_atomically(set_of("old")));
  const int status = in_child([&] {
    (void)write_files_atomically(set_of("new"), [](std::size_t i) {
      if (i == 1) ::kill(::getpid(), SIGTERM);  // between the first and the second rename
    });
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(read(at("a")) + read(at("b")) + read(at("c")), "newnewnew");
  EXPECT_EQ(names(), (std::set<std::string>{"a", "b", "c"}));  // no .tmp, no .old
}

TEST_F(FileOutputSignals, ASignalRemovesTheRegisteredTempFiles) {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    const std::string tmp = at(".t.json.tmp.abc");
    const int status = in_child([&] {
      std::ofstream(tmp) << "partial";
      const TempFileGuard guard(tmp);
      ::kill(::getpid(), sig);
      ::pause();
    });
    ASSERT_TRUE(WIFSIGNALED(status)) << status;
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_FALSE(fs::exists(tmp)) << strsignal(sig);
  }
}

TEST_F(FileOutputSignals, AFileNoLongerRegisteredStays) {
  const std::string kept = at("kept");
  const int status = in_child([&] {
    std::ofstream(kept) << "result";
    { const TempFileGuard guard(kept); }  // renamed into place: no longer a temp file
    ::kill(::getpid(), SIGTERM);
    ::pause();
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_TRUE(fs::exists(kept));
}

TEST_F(FileOutputSignals, OnlyTheLastComponentOfAnOutputDirectoryIsCreated) {
  EXPECT_FALSE(OutputDirectory::prepare(""));
  const auto deep = OutputDirectory::prepare(at("x/y"));
  ASSERT_FALSE(deep);
  EXPECT_NE(deep.error().message.find("only the last component"), std::string::npos);
  EXPECT_FALSE(fs::exists(at("x")));
  {
    auto made = OutputDirectory::prepare(at("x"));
    ASSERT_TRUE(made);
    EXPECT_TRUE(made->created());
    EXPECT_TRUE(fs::is_directory(at("x")));
  }  // not kept: a failed command removes what it created
  EXPECT_FALSE(fs::exists(at("x")));
  {
    auto made = OutputDirectory::prepare(at("x"));
    ASSERT_TRUE(made);
    made->keep();
  }
  EXPECT_TRUE(fs::is_directory(at("x")));
  {
    auto existing = OutputDirectory::prepare(at("x"));
    ASSERT_TRUE(existing);
    EXPECT_FALSE(existing->created());
  }  // an existing directory is never removed
  EXPECT_TRUE(fs::is_directory(at("x")));
}

}  // namespace
}  // namespace topotune
