// UTF-8 checks (core/utf8.h): the byte sequences RFC 3629 section 4 calls ill-formed are
// refused and, when repaired, each replaced by U+FFFD.
#include "core/utf8.h"

#include <gtest/gtest.h>

namespace topotune {
namespace {

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("p4d.24xlarge"));
  EXPECT_TRUE(is_valid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));  // é € 😀
  EXPECT_TRUE(is_valid_utf8("\xF4\x8F\xBF\xBF"));                           // U+10FFFF
}

TEST(Utf8, RefusesIllFormedSequences) {
  EXPECT_FALSE(is_valid_utf8("\xFF"));
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\xAF"));      // overlong
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate U+D800
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xE2\x82"));          // truncated
  EXPECT_FALSE(is_valid_utf8("ab\x80"));            // lone continuation byte
}

TEST(Utf8, RepairsEachBadByte) {
  EXPECT_EQ(to_valid_utf8("log\xFF.txt"), "log\xEF\xBF\xBD.txt");
  EXPECT_EQ(to_valid_utf8("\xE2\x82"
                          "a"),
            "\xEF\xBF\xBD\xEF\xBF\xBD"
            "a");
  EXPECT_EQ(to_valid_utf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_TRUE(is_valid_utf8(to_valid_utf8("\xC0\xAF\xED\xA0\x80\xF4\x90\x80\x80")));
}

}  // namespace
}  // namespace topotune
