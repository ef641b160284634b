// string_printf: the text printf would print, whatever its length (the fixed buffers it
// replaces cut rows at 200-512 characters without a word).
#include "core/string_printf.h"

#include <gtest/gtest.h>

#include <string>

namespace topotune {
namespace {

TEST(StringPrintf, FormatsLikePrintf) {
  EXPECT_EQ(string_printf("%-6s|%5.1f|%lld", "ab", 2.25, 42LL), "ab    |  2.2|42");
  EXPECT_EQ(string_printf("%s", ""), "");
}

TEST(StringPrintf, NeverTruncates) {
  const std::string long_name(1000, 'x');
  const std::string s = string_printf("%s %.2f\n", long_name.c_str(), 1e308);
  EXPECT_EQ(s.size(), 1000 + 1 + 309 + 3 + 1);  // 1e308 prints 309 digits, then ".00\n"
  EXPECT_EQ(s.back(), '\n');
}

}  // namespace
}  // namespace topotune
