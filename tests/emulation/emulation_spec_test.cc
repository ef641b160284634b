// EmulationSpec: the request's checks and the state file's round trip.

#include "emulation/emulation_spec.h"

#include <gtest/gtest.h>

#include <cmath>

namespace topotune::emu {
namespace {

EmulationSpec two_racks() {
  EmulationSpec s;
  s.nodes = 4;
  s.ranks_per_node = 2;
  s.nic_rate = gbit_per_sec(0.2);
  s.racks = 2;
  s.uplink_rate = gbit_per_sec(0.1);
  s.prefix = "ab1";
  s.congestion_control = "reno";
  return s;
}

TEST(EmulationSpec, NamesCarryThePrefix) {
  const EmulationSpec s = two_racks();
  EXPECT_EQ(s.host_ns(3), "ab1h3");
  EXPECT_EQ(s.switch_ns(), "ab1sw");
  EXPECT_EQ(s.launcher_ns(), "ab1l");
  EXPECT_EQ(s.hosts_per_rack(), 2);
}

TEST(EmulationSpec, ChecksRangesRacksAndPrefix) {
  EXPECT_TRUE(check_spec(two_racks()));
  auto refused = [](auto change, const std::string& needle) {
    EmulationSpec s = two_racks();
    change(s);
    const Expected<void> r = check_spec(s);
    ASSERT_FALSE(r) << needle;
    EXPECT_EQ(r.error().code, Errc::InvalidArgument);
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
  };
  refused([](EmulationSpec& s) { s.nodes = 65; }, "--nodes must be 1..64");
  refused([](EmulationSpec& s) { s.nodes = 0; }, "--nodes must be 1..64");
  refused([](EmulationSpec& s) { s.ranks_per_node = 0; }, "--ranks-per-node");
  refused([](EmulationSpec& s) { s.racks = 5; }, "--racks must be 1..nodes");
  refused([](EmulationSpec& s) { s.nodes = 3; }, "multiple of --racks");
  refused([](EmulationSpec& s) { s.ranks_per_node = 65; },
          "--ranks-per-node must be 1..64, got 65");
  refused([](EmulationSpec& s) { s.nic_rate = BytesPerSec(0); }, "--nic must be in 2mbit..1tbit");
  // 1 kbit/s: a NIC the cluster file cannot hold (was "internal: generated cluster JSON").
  refused([](EmulationSpec& s) { s.nic_rate = BytesPerSec(125); }, "got 1000 bit/s");
  refused([](EmulationSpec& s) { s.nic_rate = BytesPerSec(1.25e11 * 8); }, "--nic must be in");
  refused([](EmulationSpec& s) { s.uplink_rate = BytesPerSec(125); }, "--uplink must be in");
  refused([](EmulationSpec& s) { s.nic_rate = BytesPerSec(std::nan("")); }, "--nic must be in");
  EmulationSpec edge = two_racks();
  edge.ranks_per_node = 64;
  edge.nic_rate = BytesPerSec(kMinShapedBitsPerSec / 8);
  edge.uplink_rate = BytesPerSec(kMaxShapedBitsPerSec / 8);
  EXPECT_TRUE(check_spec(edge));
  refused([](EmulationSpec& s) { s.prefix = "abcde"; }, "--prefix");
  refused([](EmulationSpec& s) { s.prefix = "a-b"; }, "--prefix");
  refused([](EmulationSpec& s) { s.prefix = ""; }, "--prefix");
}

TEST(EmulationSpec, StateFileRoundTrips) {
  const EmulationSpec s = two_racks();
  const std::string text = emulation_state_json(s);
  // Bits per second in the file, as the files of existing clusters have them.
  EXPECT_NE(text.find("\"nic_bits_per_sec\": 200000000.0"), std::string::npos) << text;
  EXPECT_NE(text.find("\"uplink_bits_per_sec\": 100000000.0"), std::string::npos) << text;
  const Expected<EmulationSpec> back = parse_emulation_state(text, "emulate.json", "/some/dir");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->dir, "/some/dir");
  EXPECT_EQ(back->nodes, 4);
  EXPECT_EQ(back->ranks_per_node, 2);
  EXPECT_EQ(back->nic_rate, s.nic_rate);
  EXPECT_EQ(back->racks, 2);
  ASSERT_TRUE(back->uplink_rate);
  EXPECT_EQ(*back->uplink_rate, *s.uplink_rate);
  EXPECT_EQ(back->prefix, "ab1");
  EXPECT_EQ(back->congestion_control, "reno");
  EXPECT_EQ(emulation_state_json(*back), text);
}

TEST(EmulationSpec, AnUnshapedUplinkIsZeroInTheFile) {
  EmulationSpec s = two_racks();
  s.uplink_rate.reset();
  const std::string text = emulation_state_json(s);
  EXPECT_NE(text.find("\"uplink_bits_per_sec\": 0.0"), std::string::npos) << text;
  const Expected<EmulationSpec> back = parse_emulation_state(text, "emulate.json", "d");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_FALSE(back->uplink_rate);
}

TEST(EmulationSpec, RefusesDuplicateKeysWrongSchemaAndMissingFields) {
  const std::string good = emulation_state_json(two_racks());
  const std::string dup = "{\"nodes\": 2, " + good.substr(1);
  for (const std::string& bad :
       {dup, std::string("{\"schema\": \"topotune.cluster/1\"}"),
        std::string("{\"schema\": \"topotune.emulation/1\", \"nodes\": 2}"), std::string("[")}) {
    const Expected<EmulationSpec> r = parse_emulation_state(bad, "x/emulate.json", "x");
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, Errc::ParseError);
    EXPECT_EQ(r.error().message.rfind("x/emulate.json: ", 0), 0u) << r.error().message;
  }
}

}  // namespace
}  // namespace topotune::emu
