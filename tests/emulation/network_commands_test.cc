// The plumbing of the emulated network as command lines: what `emulate up` would run as root.

#include "emulation/network_commands.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace topotune::emu {
namespace {

using Commands = std::vector<Argv>;

bool has(const Commands& cmds, const Argv& argv) {
  return std::find(cmds.begin(), cmds.end(), argv) != cmds.end();
}

std::size_t index_of(const Commands& cmds, const Argv& argv) {
  return static_cast<std::size_t>(std::find(cmds.begin(), cmds.end(), argv) - cmds.begin());
}

EmulationSpec spec(int nodes, int racks) {
  EmulationSpec s;
  s.nodes = nodes;
  s.racks = racks;
  s.nic_rate = gbit_per_sec(0.2);
  return s;
}

TEST(NetworkCommands, OneRackHasNoSpineAndShapesEachNicBothWays) {
  const Commands c = up_commands(spec(2, 1));
  const std::set<std::string> want_ns = {"ttsw", "ttl", "tth0", "tth1"};
  std::set<std::string> made;
  for (const Argv& a : c) {
    if (a.size() == 4 && a[1] == "netns" && a[2] == "add") made.insert(a[3]);
  }
  EXPECT_EQ(made, want_ns);
  EXPECT_TRUE(has(c, {"ip", "-n", "ttsw", "link", "add", "br0", "type", "bridge", "stp_state", "0",
                      "forward_delay", "0"}));
  for (const Argv& a : c) EXPECT_TRUE(std::find(a.begin(), a.end(), "spine") == a.end());
  // Host 1: 198.18.0.2, TX shaped on its eth0, RX on its switch port, cubic on its route.
  EXPECT_TRUE(has(c, {"ip", "-n", "tth1", "addr", "add", "198.18.0.2/24", "dev", "eth0"}));
  EXPECT_TRUE(has(c, shape_command("tth1", "eth0", gbit_per_sec(0.2))));
  EXPECT_TRUE(has(c, shape_command("ttsw", "h1p", gbit_per_sec(0.2))));
  EXPECT_TRUE(has(c, {"ip", "-n", "tth1", "route", "replace", "198.18.0.0/24", "dev", "eth0",
                      "congctl", "cubic"}));
  EXPECT_TRUE(has(c, {"ip", "-n", "ttl", "addr", "add", "198.18.0.254/24", "dev", "eth0"}));
  // Six tbf qdiscs would mean a shaped uplink: two hosts x two ends only.
  EXPECT_EQ(std::count_if(c.begin(), c.end(),
                          [](const Argv& a) { return a.size() > 10 && a[10] == "tbf"; }),
            4);
}

TEST(NetworkCommands, ShapeCommandIsTcTbfInTheNamespace) {
  EXPECT_EQ(shape_command("ttsw", "up0a", gbit_per_sec(0.1)),
            (Argv{"ip", "netns", "exec", "ttsw", "tc", "qdisc", "replace", "dev", "up0a", "root",
                  "tbf", "rate", "100000000bit", "burst", "65536", "limit", "312500"}));
}

TEST(NetworkCommands, RacksJoinASpineThroughShapedUplinks) {
  EmulationSpec s = spec(4, 2);
  s.uplink_rate = gbit_per_sec(0.1);
  const Commands c = up_commands(s);
  EXPECT_TRUE(
      has(c, {"ip", "-n", "ttsw", "link", "add", "up1a", "type", "veth", "peer", "name", "up1b"}));
  EXPECT_TRUE(has(c, {"ip", "-n", "ttsw", "link", "set", "up1a", "master", "br1", "up"}));
  EXPECT_TRUE(has(c, {"ip", "-n", "ttsw", "link", "set", "up1b", "master", "spine", "up"}));
  EXPECT_TRUE(has(c, shape_command("ttsw", "up1a", gbit_per_sec(0.1))));
  EXPECT_TRUE(has(c, shape_command("ttsw", "up1b", gbit_per_sec(0.1))));
  // Hosts 0-1 on rack 0, hosts 2-3 on rack 1.
  EXPECT_TRUE(has(c, {"ip", "-n", "ttsw", "link", "set", "h1p", "master", "br0", "up"}));
  EXPECT_TRUE(has(c, {"ip", "-n", "ttsw", "link", "set", "h2p", "master", "br1", "up"}));
  // An unshaped uplink gets no qdisc.
  s.uplink_rate.reset();
  const Commands open = up_commands(s);
  EXPECT_FALSE(has(open, shape_command("ttsw", "up1a", gbit_per_sec(0.1))));
  EXPECT_EQ(open.size(), c.size() - 4);
}

TEST(NetworkCommands, NamespacesComeBeforeWhatLivesInThem) {
  const Commands c = up_commands(spec(3, 1));
  const std::size_t host2 = index_of(c, {"ip", "netns", "add", "tth2"});
  const std::size_t sw = index_of(c, {"ip", "netns", "add", "ttsw"});
  ASSERT_LT(host2, c.size());
  EXPECT_EQ(sw, 0u);
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (std::find(c[i].begin(), c[i].end(), "tth2") != c[i].end()) {
      EXPECT_GE(i, host2);
    }
  }
}

TEST(NetworkCommands, NothingIsCreatedInTheRootNamespace) {
  // Every `ip link add` names the namespace its devices are born in (`ip -n NS`, or netns on
  // both ends of a veth): deleting the namespaces must remove everything.
  EmulationSpec s = spec(4, 2);
  s.uplink_rate = gbit_per_sec(0.1);
  int veths_across = 0;
  for (const Argv& a : up_commands(s)) {
    const auto link = std::find(a.begin(), a.end(), "link");
    if (link == a.end() || link + 1 == a.end() || *(link + 1) != "add") continue;
    if (a[1] == "-n") continue;  // created inside namespace a[2]
    EXPECT_EQ(std::count(a.begin(), a.end(), "netns"), 2) << a[3] << " " << a[4];
    ++veths_across;
  }
  EXPECT_EQ(veths_across, 5);  // the launcher's and four hosts' eth0
}

TEST(NetworkCommands, OnlyOurNamesAreOurs) {
  for (const char* n : {"ttsw", "ttl", "ttprobe", "tth0", "tth63"}) {
    EXPECT_TRUE(is_emulation_namespace("tt", n)) << n;
  }
  for (const char* n : {"tt", "tth", "tth1x", "ttswx", "xtth1", "other", "tt0h1"}) {
    EXPECT_FALSE(is_emulation_namespace("tt", n)) << n;
  }
}

}  // namespace
}  // namespace topotune::emu
