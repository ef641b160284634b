// Bounded input (core/input_file.h), memory estimates (core/memory_budget.h) and checked
// byte arithmetic (core/units.h) (docs/limits.md).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "core/input_file.h"
#include "core/memory_budget.h"
#include "core/units.h"

namespace topotune {
namespace {

std::string temp_path(const char* name) {
  return ::testing::TempDir() + "/tt_input_" + std::to_string(::getpid()) + "_" + name;
}

TEST(InputFile, ReadsASmallFileWhole) {
  const std::string path = temp_path("small");
  std::ofstream(path) << "{\"a\": 1}";
  auto text = read_input_file(path, "test file", Bytes(1 << 20));
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "{\"a\": 1}");
  std::remove(path.c_str());
}

TEST(InputFile, RefusesARegularFileOverTheLimitBeforeReading) {
  const std::string path = temp_path("big");
  std::ofstream(path) << std::string(2048, 'x');
  auto text = read_input_file(path, "test file", Bytes(1024));
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, Errc::InvalidArgument);
  EXPECT_NE(text.error().message.find("limit on an input file"), std::string::npos);
  std::remove(path.c_str());
}

TEST(InputFile, RefusesEndlessDevicesAtTheLimit) {
  auto text = read_input_file("/dev/zero", "test file", Bytes(1 << 20));
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("more than 1 MiB"), std::string::npos)
      << text.error().message;
}

TEST(InputFile, NamesADirectoryAsSuch) {
  auto text = read_input_file(::testing::TempDir(), "test file", Bytes(1 << 20));
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, Errc::Io);
  EXPECT_NE(text.error().message.find("is a directory"), std::string::npos);
}

TEST(InputFile, MissingFileIsNotFound) {
  auto text = read_input_file(temp_path("missing"), "test file", Bytes(1 << 20));
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, Errc::NotFound);
}

TEST(MemoryBudget, ParsesMemAvailable) {
  const auto avail = parse_meminfo_available(
      "MemTotal:       16000000 kB\nMemFree:  100 kB\nMemAvailable:    2048 kB\n");
  ASSERT_TRUE(avail);
  EXPECT_EQ(avail->value, 2048 * 1024);
  EXPECT_FALSE(parse_meminfo_available("MemTotal: 5 kB\n"));
}

TEST(MemoryBudget, RefusesWithNeedAndAvailable) {
  EXPECT_TRUE(check_memory(Bytes(1 << 30), Bytes(std::int64_t{2} << 30), "x"));
  EXPECT_TRUE(check_memory(Bytes(std::int64_t{1} << 40), Bytes(0), "x"));  // 0: unlimited
  auto r = check_memory(Bytes(std::int64_t{80} << 30), Bytes(std::int64_t{2} << 30), "ring");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("ring needs 80.0 GiB, 2.0 GiB available"), std::string::npos)
      << r.error().message;
}

TEST(MemoryBudget, EstimatesSaturateInsteadOfOverflowing) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  // 2(n-1)n C K for n = 2^20, C = 1024, K = 65536 is 2^67: past int64, must not wrap.
  EXPECT_EQ(saturating_product({2, (1 << 20) - 1, 1 << 20, 1024, 65536}), kMax);
  EXPECT_EQ(saturating_add(kMax, 1), kMax);
  EXPECT_EQ(saturating_product({2, 3, 7}), 42);
}

TEST(Units, CheckedByteArithmeticReportsOverflow) {
  const Bytes big(std::numeric_limits<std::int64_t>::max() - 1);
  EXPECT_FALSE(checked_add(big, Bytes(2)));
  EXPECT_FALSE(checked_mul(Bytes(std::int64_t{1} << 62), 2));
  ASSERT_TRUE(checked_mul(Bytes(1 << 20), 1 << 20));
  EXPECT_EQ(checked_mul(Bytes(1 << 20), 1 << 20)->value, std::int64_t{1} << 40);
}

TEST(UnitsDeathTest, UncheckedOverflowIsABugNotAWrap) {
  const Bytes big(std::numeric_limits<std::int64_t>::max());
  EXPECT_DEATH((void)(big + Bytes(1)), "Bytes overflow");
}

}  // namespace
}  // namespace topotune
