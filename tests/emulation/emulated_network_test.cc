// Building and removing the emulated network through a fake command runner: the commands run
// in order, a failing step removes what was made, and only our namespaces are ever touched.

#include "emulation/emulated_network.h"

#include <gtest/gtest.h>

#include <string>

namespace topotune::emu {
namespace {

/// Records every command; fails the `fail_at`-th (1-based) with a netlink message, and
/// answers `ip netns list` with `listed` (only after a failure when `list_after_failure`).
class FakeIp {
 public:
  std::vector<Argv> ran;
  std::size_t fail_at = 0;
  std::string listed;
  bool list_after_failure = false;

  CommandRunner runner() {
    return [this](const Argv& argv) -> Expected<CommandResult> {
      ran.push_back(argv);
      if (ran.size() == fail_at) {
        failed_ = true;
        return CommandResult{2, "RTNETLINK answers: File exists\n"};
      }
      if (argv == Argv{"ip", "netns", "list"} && (failed_ || !list_after_failure)) {
        return CommandResult{0, listed};
      }
      return CommandResult{0, ""};
    };
  }

 private:
  bool failed_ = false;
};

EmulationSpec two_hosts() {
  EmulationSpec s;
  s.nodes = 2;
  return s;
}

TEST(EmulatedNetwork, UpRunsTheRecipeInOrder) {
  FakeIp ip;
  ASSERT_TRUE(emulated_up(two_hosts(), ip.runner()));
  std::vector<Argv> want = {{"ip", "netns", "list"}};
  for (Argv& a : up_commands(two_hosts())) want.push_back(std::move(a));
  EXPECT_EQ(ip.ran, want);
}

TEST(EmulatedNetwork, AFailedStepRemovesWhatWasMade) {
  FakeIp ip;
  ip.fail_at = 5;  // the list, then the switch namespace, lo, br0: the bridge's `set up` fails
  ip.listed = "ttsw\ntth0 (id: 3)\nother\ntth1x\n";
  ip.list_after_failure = true;
  const Expected<void> r = emulated_up(two_hosts(), ip.runner());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::Transport);
  EXPECT_EQ(r.error().message,
            "`ip -n ttsw link set br0 up` failed: RTNETLINK answers: File exists");
  const std::vector<Argv> tail(ip.ran.begin() + 5, ip.ran.end());
  // Our namespaces only (sorted), each asked twice for processes (TERM, then KILL), then
  // deleted; "other" and "tth1x" are someone else's.
  const std::vector<Argv> want = {{"ip", "netns", "list"},         {"ip", "netns", "pids", "tth0"},
                                  {"ip", "netns", "pids", "ttsw"}, {"ip", "netns", "pids", "tth0"},
                                  {"ip", "netns", "pids", "ttsw"}, {"ip", "netns", "del", "tth0"},
                                  {"ip", "netns", "del", "ttsw"}};
  EXPECT_EQ(tail, want);
}

TEST(EmulatedNetwork, UpRefusesWhenTheClusterExists) {
  FakeIp ip;
  ip.listed = "tth0\n";
  const Expected<void> r = emulated_up(two_hosts(), ip.runner());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("exists already"), std::string::npos);
  EXPECT_EQ(ip.ran.size(), 1u);  // only looked
}

TEST(EmulatedNetwork, UpChecksTheSpecBeforeRunningAnything) {
  FakeIp ip;
  EmulationSpec s = two_hosts();
  s.racks = 3;
  EXPECT_FALSE(emulated_up(s, ip.runner()));
  EXPECT_TRUE(ip.ran.empty());
}

TEST(EmulatedNetwork, DownReportsWhatItRemovedAndFailsLoudly) {
  FakeIp ip;
  ip.listed = "ttl\nttsw\n";
  const Expected<std::vector<std::string>> removed = emulated_down("tt", ip.runner());
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_EQ(*removed, (std::vector<std::string>{"ttl", "ttsw"}));
  FakeIp broken;
  broken.listed = "ttl\n";
  broken.fail_at = 4;  // list, pids, pids, del
  const auto r = emulated_down("tt", broken.runner());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("`ip netns del ttl` failed"), std::string::npos);
}

TEST(EmulatedNetwork, SystemRunnerReportsAMissingProgramAs127) {
  const Expected<CommandResult> r = system_runner()({"topotune-no-such-ip-16"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 127);
  EXPECT_NE(r->output.find("cannot run topotune-no-such-ip-16"), std::string::npos);
  const Expected<CommandResult> echo = system_runner()({"sh", "-c", "echo out; echo err >&2"});
  ASSERT_TRUE(echo) << echo.error().message;
  EXPECT_EQ(echo->status, 0);
  EXPECT_EQ(echo->output, "out\nerr\n");
}

}  // namespace
}  // namespace topotune::emu
