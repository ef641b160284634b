// The files `emulate up` writes: their content, the all-or-none write, and the state read back.

#include "emulation/launch_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/assert.h"
#include "tests/lib/temp_dir.h"

namespace topotune::emu {
namespace {

namespace fs = std::filesystem;

using TempDir = test_support::TempDir;

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

EmulationSpec four_by_two(const std::string& dir) {
  EmulationSpec s;
  s.nodes = 4;
  s.ranks_per_node = 2;
  s.racks = 2;
  s.nic_rate = gbit_per_sec(0.2);
  s.uplink_rate = gbit_per_sec(0.1);
  s.dir = dir;
  return s;
}

TEST(LaunchFiles, HostfileAndWrapperMatchTheSpec) {
  const EmulationSpec s = four_by_two("/x");
  EXPECT_EQ(hostfile_text(s), "tth0 slots=2\ntth1 slots=2\ntth2 slots=2\ntth3 slots=2\n");
  const std::string w = mpirun_script(s);
  for (const char* needle :
       {"-np 8 \\", "ip netns exec ttl unshare --uts", "--bind-to none", "btl_tcp_flags send",
        "btl_tcp_sndbuf 262144", "plm_rsh_agent \"$dir/agent.sh\"", "198.18.0.0/24"}) {
    EXPECT_NE(w.find(needle), std::string::npos) << needle;
  }
  EXPECT_NE(agent_script().find("exec ip netns exec \"$host\" unshare --uts"), std::string::npos);
  EXPECT_EQ(mpirun_command(s, {"topotune", "measure", "--size", "1M"}),
            (std::vector<std::string>{"/x/mpirun.sh", "topotune", "measure", "--size", "1M"}));
}

TEST(LaunchFiles, WritesAllFilesExecutableScriptsAndReadsTheStateBack) {
  const TempDir tmp{"topotune-emulation"};
  const std::string dir = (tmp.path() / "c").string();  // created by prepare_emulation_dir
  const EmulationSpec s = four_by_two(dir);
  Expected<OutputDirectory> made = prepare_emulation_dir(s);
  ASSERT_TRUE(made) << made.error().message;
  ASSERT_TRUE(write_emulation_files(s));
  made->keep();
  for (const char* f : {"hostfile", "agent.sh", "mpirun.sh", "cluster.json", "emulate.json"}) {
    EXPECT_TRUE(fs::is_regular_file(fs::path(dir) / f)) << f;
  }
  for (const char* f : {"agent.sh", "mpirun.sh"}) {
    EXPECT_EQ(::access((fs::path(dir) / f).c_str(), X_OK), 0) << f;
  }
  EXPECT_EQ(slurp(fs::path(dir) / "hostfile"), hostfile_text(s));
  const Expected<EmulationSpec> back = read_emulation_state(dir);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->dir, dir);
  EXPECT_EQ(back->nodes, 4);
  EXPECT_EQ(back->nic_rate, s.nic_rate);
}

TEST(LaunchFiles, TheDirectoryIsCheckedBeforeAnythingAndNeverEmpty) {
  const TempDir tmp{"topotune-emulation"};
  // An empty --dir would put every file into "/" (an unset $DIR).
  EXPECT_FALSE(prepare_emulation_dir(four_by_two("")));
  EXPECT_FALSE(write_emulation_files(four_by_two("")));
  const std::string deep = (tmp.path() / "a" / "b").string();
  EXPECT_FALSE(prepare_emulation_dir(four_by_two(deep)));  // only the last component
  EXPECT_FALSE(fs::exists(tmp.path() / "a"));
  const std::string dir = (tmp.path() / "c").string();
  fs::create_directory(dir);
  fs::create_directory(fs::path(dir) / "cluster.json");  // a target that cannot be replaced
  const Expected<OutputDirectory> r = prepare_emulation_dir(four_by_two(dir));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("cluster.json"), std::string::npos) << r.error().message;
  {
    const Expected<OutputDirectory> fresh =
        prepare_emulation_dir(four_by_two((tmp.path() / "d").string()));
    ASSERT_TRUE(fresh);
  }  // not kept (the command failed): removed again
  EXPECT_FALSE(fs::exists(tmp.path() / "d"));
}

TEST(LaunchFiles, AMissingStateIsNotFound) {
  const TempDir tmp{"topotune-emulation"};
  const Expected<EmulationSpec> r = read_emulation_state(tmp.path().string());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::NotFound);
  EXPECT_NE(r.error().message.find("no emulated cluster in"), std::string::npos);
}

}  // namespace
}  // namespace topotune::emu
