// Names that reach emitted files: the entry check and the three ways out (comment, Python
// string, shell word), and the display form used in messages.

#include "core/name_check.h"

#include <gtest/gtest.h>

#include <string>

namespace topotune {
namespace {

TEST(NameCheck, AcceptsTheNamesTheProductShips) {
  for (const char* name : {"p4d.24xlarge", "ml.p6-b200.48xlarge", "bert-large", "gb300-nvl-64gpu",
                           "torchvision:resnet50", "my model (v2), fp32/bf16+x_y"}) {
    EXPECT_TRUE(check_name(name, "name")) << name;
  }
}

TEST(NameCheck, RefusesCodeControlCharactersAndLength) {
  const std::string nul("a\0b", 3);
  for (const std::string& name :
       {std::string("evil\ntouch x #"), std::string("$(id)"), std::string("`id`"),
        std::string("a'b"), std::string("a\"b"), std::string("a;b"), std::string("\x1b[31m"), nul,
        std::string("caf\xc3\xa9"), std::string(129, 'a'), std::string()}) {
    auto r = check_name(name, "model name");
    ASSERT_FALSE(r) << display_text(name);
    EXPECT_EQ(r.error().code, Errc::InvalidArgument);
    EXPECT_NE(r.error().message.find("model name"), std::string::npos);
    // The message shows the name escaped: no raw control byte reaches a terminal.
    for (const char c : r.error().message) EXPECT_FALSE(c >= 0 && c < 0x20) << r.error().message;
  }
  EXPECT_EQ(check_name("evil\ntouch", "n").error().message,
            "n 'evil\\x0atouch' has \\x0a at position 5; a name may hold letters, digits, space "
            "and . _ - + : / ( ) ,");
  EXPECT_TRUE(check_name(std::string(128, 'a'), "n"));
}

TEST(NameCheck, CommentTextCannotEndTheComment) {
  EXPECT_EQ(comment_text("p4d.24xlarge"), "p4d.24xlarge");
  EXPECT_EQ(comment_text("evil\ntouch $(x) `y` 'z'"), "evil?touch ?(x) ?y? ?z?");
  EXPECT_EQ(comment_text(std::string("a\0\r\x1b", 4)), "a???");
}

TEST(NameCheck, PythonStringLiteralIsOneEscapedLine) {
  EXPECT_EQ(python_string_literal("ml.p4d.24xlarge"), "\"ml.p4d.24xlarge\"");
  EXPECT_EQ(python_string_literal("a\"b\\c\nd"), "\"a\\\"b\\\\c\\x0ad\"");
  EXPECT_EQ(python_string_literal(std::string("\0\x1b", 2)), "\"\\x00\\x1b\"");
}

TEST(NameCheck, ShellQuotedIsOneWord) {
  EXPECT_EQ(shell_quoted("p4d"), "'p4d'");
  EXPECT_EQ(shell_quoted("it's $(x)"), "'it'\\''s $(x)'");
}

TEST(NameCheck, TerminalAndDisplayTextEscapeControlBytes) {
  EXPECT_EQ(terminal_text("a\x1b[2Jb\n"), "a\\x1b[2Jb\\x0a");
  EXPECT_EQ(terminal_text("200 \xc2\xb5s"), "200 \xc2\xb5s");  // UTF-8 stays readable
  EXPECT_EQ(display_text("a\\b\xc3\xa9"), "a\\\\b\\xc3\\xa9");
  EXPECT_EQ(display_text(std::string(100, 'x')), std::string(80, 'x') + "...");
}

}  // namespace
}  // namespace topotune
