// The safe output writer: nothing but a regular file is ever replaced, links
// are never followed, failures leave no half file and no temp file, and sets are all or none.

#include "core/file_output.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace topotune {
namespace {

namespace fs = std::filesystem;

class FileOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "topotune-output-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void put(const std::string& path, const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
  }
  /// Every name in the directory, hidden ones included (temp files start with '.').
  std::set<std::string> names() const {
    std::set<std::string> n;
    for (const auto& e : fs::directory_iterator(dir_)) n.insert(e.path().filename().string());
    return n;
  }

  fs::path dir_;
};

TEST_F(FileOutput, WritesANewFileWithTheUmaskModeAndLeavesNoTemp) {
  const mode_t mask = ::umask(022);
  ASSERT_TRUE(write_file_atomically(at("a.json"), "{}\n"));
  ::umask(mask);
  EXPECT_EQ(read(at("a.json")), "{}\n");
  struct stat st {};
  ASSERT_EQ(::stat(at("a.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(names(), (std::set<std::string>{"a.json"}));
}

TEST_F(FileOutput, ReplacesARegularFileKeepingItsMode) {
  put(at("a.json"), "old content that is longer\n");
  ASSERT_EQ(::chmod(at("a.json").c_str(), 0640), 0);
  ASSERT_TRUE(write_file_atomically(at("a.json"), "new\n"));
  EXPECT_EQ(read(at("a.json")), "new\n");
  struct stat st {};
  ASSERT_EQ(::stat(at("a.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

TEST_F(FileOutput, RefusesDeviceNodesAndLeavesThemDevices) {
  for (const char* dev : {"/dev/null", "/dev/full"}) {
    const auto pre = check_output_path(dev);
    ASSERT_FALSE(pre) << dev;
    EXPECT_EQ(pre.error().code, Errc::Io);
    EXPECT_NE(pre.error().message.find("it is a character device"), std::string::npos)
        << pre.error().message;
    EXPECT_FALSE(write_file_atomically(dev, "x"));
    struct stat st {};
    ASSERT_EQ(::lstat(dev, &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << dev << " was replaced";
  }
}

TEST_F(FileOutput, NeverFollowsAPlantedSymlink) {
  put(at("victim"), "precious\n");
  fs::create_symlink(at("victim"), at("t.json"));
  const auto r = write_file_atomically(at("t.json"), "trace\n");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("symbolic link"), std::string::npos) << r.error().message;
  EXPECT_EQ(read(at("victim")), "precious\n");
  EXPECT_TRUE(fs::is_symlink(at("t.json")));
  // A dangling link would create its target elsewhere: refused as well.
  fs::create_symlink(at("elsewhere"), at("u.json"));
  EXPECT_FALSE(write_file_atomically(at("u.json"), "x"));
  EXPECT_FALSE(fs::exists(at("elsewhere")));
  EXPECT_EQ(names(), (std::set<std::string>{"victim", "t.json", "u.json"}));
}

TEST_F(FileOutput, TheOldPredictableTempNameIsNotUsed) {
  // Before the safe writer the temp file was "<path>.tmp.<pid>", opened with truncation through
  // links: a link planted under that name overwrote its target.
  put(at("victim"), "precious\n");
  fs::create_symlink(at("victim"), at("t.json.tmp." + std::to_string(::getpid())));
  ASSERT_TRUE(write_file_atomically(at("t.json"), "trace\n"));
  EXPECT_EQ(read(at("victim")), "precious\n");
  EXPECT_EQ(read(at("t.json")), "trace\n");
}

TEST_F(FileOutput, RefusesDirectoriesFifosAndMissingDirectories) {
  fs::create_directory(at("d"));
  auto r = check_output_path(at("d"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("it is a directory"), std::string::npos);
  ASSERT_EQ(::mkfifo(at("f").c_str(), 0600), 0);
  r = write_file_atomically(at("f"), "x");  // must neither hang nor replace the FIFO
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("a FIFO"), std::string::npos) << r.error().message;
  EXPECT_TRUE(fs::is_fifo(at("f")));
  r = check_output_path(at("missing/out.svg"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("missing"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("No such file or directory"), std::string::npos);
  EXPECT_FALSE(check_output_dir(at("missing")));
  EXPECT_FALSE(check_output_path(""));
}

TEST_F(FileOutput, ReadOnlyFilesAreRefusedForNonRoot) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write read-only files";
  put(at("ro"), "keep\n");
  ASSERT_EQ(::chmod(at("ro").c_str(), 0444), 0);
  EXPECT_FALSE(write_file_atomically(at("ro"), "x"));
  EXPECT_EQ(read(at("ro")), "keep\n");
}

TEST_F(FileOutput, ASetWithOneRefusedTargetWritesNothing) {
  put(at("a"), "old a\n");
  put(at("b"), "old b\n");
  put(at("victim"), "precious\n");
  fs::create_symlink(at("victim"), at("c"));
  const auto r = write_files_atomically(
      {{at("a"), "new a\n"}, {at("b"), "new b\n"}, {at("c"), "new c\n"}, {at("d"), "new d\n"}});
  ASSERT_FALSE(r);
  EXPECT_EQ(read(at("a")), "old a\n");
  EXPECT_EQ(read(at("b")), "old b\n");
  EXPECT_EQ(read(at("victim")), "precious\n");
  EXPECT_EQ(names(), (std::set<std::string>{"a", "b", "c", "victim"}));
}

TEST_F(FileOutput, ARenameFailingHalfWayPutsEveryFileBack) {
  put(at("a"), "old a\n");
  put(at("c"), "old c\n");
  // Between staging and the third rename, a non-empty directory appears at "c": its rename
  // fails after "a" and "b" were renamed, and both must be undone.
  const auto r = write_files_atomically(
      {{at("a"), "new a\n"}, {at("b"), "new b\n"}, {at("c"), "new c\n"}}, [&](std::size_t i) {
        if (i != 2) return;
        fs::remove(at("c"));
        fs::create_directory(at("c"));
        put(at("c") + "/inside", "x");
      });
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("cannot write '" + at("c") + "'"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(read(at("a")), "old a\n");
  EXPECT_FALSE(fs::exists(at("b")));
  EXPECT_EQ(names(), (std::set<std::string>{"a", "c"}));  // no temp file, no kept old file
}

TEST_F(FileOutput, AWriteThatFailsHalfWayKeepsTheOldFile) {
  // A full disk, simulated by the file size limit: write() fails with EFBIG after 4 KiB.
  put(at("p.svg"), "old\n");
  struct sigaction ignore {
  }, saved{};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGXFSZ, &ignore, &saved), 0);
  rlimit limit{}, small{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &limit), 0);
  small = limit;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const auto r = write_file_atomically(at("p.svg"), std::string(100000, 'x'));
  ::setrlimit(RLIMIT_FSIZE, &limit);
  ::sigaction(SIGXFSZ, &saved, nullptr);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("File too large"), std::string::npos) << r.error().message;
  EXPECT_EQ(read(at("p.svg")), "old\n");
  EXPECT_EQ(names(), (std::set<std::string>{"p.svg"}));
}

TEST_F(FileOutput, ASetIsWrittenWhole) {
  put(at("a"), "old a\n");
  ASSERT_TRUE(write_files_atomically({{at("a"), "new a\n"}, {at("b"), "new b\n"}}));
  EXPECT_EQ(read(at("a")), "new a\n");
  EXPECT_EQ(read(at("b")), "new b\n");
  EXPECT_EQ(names(), (std::set<std::string>{"a", "b"}));
}

TEST_F(FileOutput, ASetRemovesItsStaleFilesInTheSameCommit) {
  put(at("a"), "old a\n");
  put(at("stale"), "old stale\n");
  ASSERT_TRUE(write_files_atomically(
      {{at("a"), "new a\n"}, {at("stale"), "", true}, {at("gone"), "", true}}));
  EXPECT_EQ(read(at("a")), "new a\n");
  EXPECT_EQ(names(), (std::set<std::string>{"a"}));  // no temp file, no kept old file
}

TEST_F(FileOutput, ARemovalIsPutBackWhenALaterRenameFails) {
  put(at("a"), "old a\n");
  put(at("stale"), "old stale\n");
  const auto r = write_files_atomically(
      {{at("stale"), "", true}, {at("a"), "new a\n"}, {at("c"), "new c\n"}}, [&](std::size_t i) {
        if (i != 2) return;
        fs::create_directory(at("c"));
        put(at("c") + "/inside", "x");
      });
  ASSERT_FALSE(r);
  EXPECT_EQ(read(at("stale")), "old stale\n");
  EXPECT_EQ(read(at("a")), "old a\n");
  EXPECT_EQ(names(), (std::set<std::string>{"a", "c", "stale"}));
}

TEST_F(FileOutput, ARemovalRefusesALink) {
  put(at("target"), "keep\n");
  fs::create_symlink(at("target"), at("stale"));
  const auto r = write_files_atomically({{at("a"), "new a\n"}, {at("stale"), "", true}});
  ASSERT_FALSE(r);
  EXPECT_TRUE(fs::is_symlink(at("stale")));
  EXPECT_FALSE(fs::exists(at("a")));
}

}  // namespace
}  // namespace topotune
