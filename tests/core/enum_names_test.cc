// EnumNames on a toy enum: both directions from one table, aliases that parse but are never
// written or listed, the "known: ..." message, and the table checks enum_names runs.

#include "core/enum_names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace topotune {
namespace {

enum class Fruit { Apple, Pear, Quince };

constexpr auto kFruit = enum_names<Fruit>({{Fruit::Apple, "apple"},
                                           {Fruit::Pear, "pear"},
                                           {Fruit::Apple, "malus", true},
                                           {Fruit::Quince, "quince"}});

TEST(EnumNamesTable, NameOfAndParseAreInverse) {
  for (Fruit f : kFruit.all()) EXPECT_EQ(*kFruit.parse(kFruit.name_of(f), "fruit"), f);
  EXPECT_STREQ(kFruit.name_of(Fruit::Quince), "quince");
}

TEST(EnumNamesTable, AliasParsesButIsNeverWrittenOrListed) {
  EXPECT_EQ(*kFruit.parse("malus", "fruit"), Fruit::Apple);
  EXPECT_STREQ(kFruit.name_of(Fruit::Apple), "apple");
  EXPECT_EQ(kFruit.all(), (std::vector<Fruit>{Fruit::Apple, Fruit::Pear, Fruit::Quince}));
  EXPECT_EQ(kFruit.names_text(), "apple, pear, quince");
  EXPECT_EQ(kFruit.names_text(", ", " or "), "apple, pear or quince");
}

TEST(EnumNamesTable, MatchIsExact) {
  EXPECT_FALSE(kFruit.find("Apple").has_value());
  EXPECT_FALSE(kFruit.find("appl").has_value());
  EXPECT_FALSE(kFruit.find("").has_value());
  EXPECT_EQ(kFruit.find("pear"), Fruit::Pear);
}

TEST(EnumNamesTable, UnknownNameListsTheKnownOnes) {
  const Expected<Fruit> bad = kFruit.parse("plum", "fruit");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, Errc::InvalidArgument);
  EXPECT_EQ(bad.error().message, "unknown fruit 'plum' (known: apple, pear, quince)");
}

TEST(EnumNamesTable, UnknownNameIsShownEscaped) {
  // A name from the command line may hold a terminal escape; the message must not.
  EXPECT_EQ(kFruit.parse("\x1b[2Jfig\n", "fruit").error().message,
            "unknown fruit '\\x1b[2Jfig\\x0a' (known: apple, pear, quince)");
}

TEST(EnumNamesTable, ValidRefusesMalformedTables) {
  using T = EnumNames<Fruit, 2>;
  EXPECT_TRUE((T{{{{Fruit::Apple, "apple"}, {Fruit::Pear, "pear"}}}}.valid()));
  EXPECT_FALSE((T{{{{Fruit::Apple, "apple"}, {Fruit::Pear, "apple"}}}}.valid()));   // same name
  EXPECT_FALSE((T{{{{Fruit::Apple, "apple"}, {Fruit::Apple, "malus"}}}}.valid()));  // named twice
  EXPECT_FALSE((T{{{{Fruit::Apple, "apple"}, {Fruit::Pear, "pyrus", true}}}}.valid()));  // alias
}

TEST(EnumNamesTableDeathTest, ValueMissingFromTheTableIsABug) {
  constexpr auto kPartial = enum_names<Fruit>({{Fruit::Apple, "apple"}});
  EXPECT_DEATH(kPartial.name_of(Fruit::Pear), "has no name in its table");
}

}  // namespace
}  // namespace topotune
