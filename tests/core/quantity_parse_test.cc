#include "core/quantity_parse.h"

#include <gtest/gtest.h>

namespace topotune {
namespace {

TEST(ParseSize, PowersOf1024) {
  EXPECT_EQ(parse_size("8")->value, 8);
  EXPECT_EQ(parse_size("64K")->value, 64 << 10);
  EXPECT_EQ(parse_size("256M")->value, 256LL << 20);
  EXPECT_EQ(parse_size("4G")->value, 4LL << 30);
  EXPECT_EQ(parse_size("4g")->value, 4LL << 30);
  EXPECT_EQ(parse_size("64KiB")->value, 64 << 10);
  EXPECT_EQ(parse_size(" 1048576 ")->value, 1048576);
}

TEST(ParseSize, RejectsBadInput) {
  for (const char* bad : {"", "-1", "1.5M", "12X", "K", "99999999999999999999", "9000000000G"}) {
    EXPECT_FALSE(parse_size(bad)) << bad;
  }
}

TEST(ParseSizeList, RangeDoublesLikeNcclTests) {
  const auto v = parse_size_list("8:64");
  ASSERT_TRUE(v);
  ASSERT_EQ(v->size(), 4u);
  EXPECT_EQ((*v)[0].value, 8);
  EXPECT_EQ((*v)[3].value, 64);
  const auto w = parse_size_list("1M,64M,1G");
  ASSERT_TRUE(w);
  EXPECT_EQ((*w)[2].value, 1LL << 30);
  EXPECT_FALSE(parse_size_list("64:8"));
  EXPECT_FALSE(parse_size_list("0:8"));
  EXPECT_FALSE(parse_size_list("1M,,2M"));
}

TEST(ParseRate, BitsAndBytes) {
  EXPECT_DOUBLE_EQ(parse_rate("100Gbps")->value, 12.5e9);
  EXPECT_DOUBLE_EQ(parse_rate("200mbit")->value, 25e6);
  EXPECT_DOUBLE_EQ(parse_rate("25GB/s")->value, 25e9);
  EXPECT_DOUBLE_EQ(parse_rate("25 GBps")->value, 25e9);
  EXPECT_FALSE(parse_rate("fast"));
  EXPECT_FALSE(parse_rate("-5Gbps"));
  EXPECT_FALSE(parse_rate("5 furlongs"));
}

TEST(ParseDuration, Units) {
  EXPECT_DOUBLE_EQ(parse_duration("10us")->value, 10e-6);
  EXPECT_DOUBLE_EQ(parse_duration("2.5ms")->value, 2.5e-3);
  EXPECT_DOUBLE_EQ(parse_duration("3")->value, 3.0);
  EXPECT_FALSE(parse_duration("3 fortnights"));
}

TEST(FormatSize, NcclTestsStyle) {
  EXPECT_EQ(format_size(Bytes(64 << 10)), "64K");
  EXPECT_EQ(format_size(Bytes(1LL << 30)), "1G");
  EXPECT_EQ(format_size(Bytes(1000)), "1000");
}

// Durations and rates are printed into a string of the needed length: a fixed 64-byte buffer
// cut a long figure (1e100 s has 101 digits) without a word.
TEST(FormatDuration, UnitsAndLongFiguresWhole) {
  EXPECT_EQ(format_duration(Seconds(2.5e-6)), "2.50 us");
  EXPECT_EQ(format_duration(Seconds(0.0125)), "12.500 ms");
  EXPECT_EQ(format_duration(Seconds(3)), "3.000 s");
  const std::string long_time = format_duration(Seconds(1e100));
  EXPECT_EQ(long_time.size(), 101u + 6u);  // 101 digits, ".000 s"
  EXPECT_EQ(long_time.substr(long_time.size() - 6), ".000 s");
  EXPECT_EQ(format_rate(BytesPerSec(12.5e9)), "12.50 GB/s");
  const std::string long_rate = format_rate(BytesPerSec(1e109));
  EXPECT_EQ(long_rate.size(), 101u + 8u);  // 1e100 GB/s: 101 digits, ".00 GB/s"
}

TEST(SplitCommaList, ItemsInOrderEmptyOnesDropped) {
  using V = std::vector<std::string>;
  EXPECT_EQ(split_comma_list("ring,mpi"), (V{"ring", "mpi"}));
  EXPECT_EQ(split_comma_list(",hierarchical(rhd),,ps(k=2),"), (V{"hierarchical(rhd)", "ps(k=2)"}));
  EXPECT_EQ(split_comma_list("one"), (V{"one"}));
  EXPECT_TRUE(split_comma_list("").empty());
  EXPECT_TRUE(split_comma_list(",,").empty());
}

}  // namespace
}  // namespace topotune
