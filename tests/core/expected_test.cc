#include "core/expected.h"

#include <gtest/gtest.h>

namespace topotune {
namespace {

Expected<int> half(int v) {
  if (v % 2 != 0) return fail(Errc::InvalidArgument, "odd: " + std::to_string(v));
  return v / 2;
}

Expected<int> quarter(int v) {
  TT_TRY(int h, half(v));
  TT_TRY(int q, half(h));
  return q;
}

TEST(Expected, CarriesValueOrError) {
  EXPECT_EQ(*half(8), 4);
  const auto e = half(3);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, Errc::InvalidArgument);
  EXPECT_EQ(e.error().message, "odd: 3");
}

TEST(Expected, TryPropagatesTheFirstError) {
  EXPECT_EQ(*quarter(8), 2);
  const auto e = quarter(6);  // 6/2 = 3 is odd: the second step fails.
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message, "odd: 3");
}

TEST(Expected, ContextPrefixesTheMessage) {
  auto e = half(1).context("loading p4d");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message, "loading p4d: odd: 1");
  EXPECT_EQ(*half(2).context("unused"), 1);
}

TEST(Expected, VoidSpecialisation) {
  Expected<void> ok;
  EXPECT_TRUE(ok);
  Expected<void> bad = fail(Errc::Io, "disk");
  EXPECT_FALSE(bad);
  EXPECT_EQ(std::move(bad).context("saving").error().message, "saving: disk");
}

}  // namespace
}  // namespace topotune
