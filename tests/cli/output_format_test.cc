// --format parsed once into an enum, with one message for every command.
#include "cli/output_format.h"

#include <gtest/gtest.h>

namespace topotune::cli {
namespace {

TEST(OutputFormat, ParsesAllowedNamesOnly) {
  const std::vector<OutputFormat> tj = {OutputFormat::Table, OutputFormat::Json};
  EXPECT_EQ(parse_output_format("json", tj).value(), OutputFormat::Json);
  EXPECT_EQ(parse_output_format("table", tj).value(), OutputFormat::Table);
  const auto dot = parse_output_format("dot", tj);
  ASSERT_FALSE(dot.has_value());
  EXPECT_EQ(dot.error().message, "must be table or json, got 'dot'");
  const auto three =
      parse_output_format("JSON", {OutputFormat::Table, OutputFormat::Json, OutputFormat::Dot});
  ASSERT_FALSE(three.has_value());
  EXPECT_EQ(three.error().message, "must be table, json or dot, got 'JSON'");
}

TEST(OutputFormat, OptionParsesIntoTheEnumAndRefusesOthers) {
  CLI::App app;
  OutputFormat f = OutputFormat::Table;
  add_format_option(app, f, {OutputFormat::Table, OutputFormat::Json}, "help");
  app.parse("--format json", false);
  EXPECT_EQ(f, OutputFormat::Json);
  CLI::App other;
  OutputFormat g = OutputFormat::Table;
  add_format_option(other, g, {OutputFormat::Table, OutputFormat::Json}, "help");
  EXPECT_THROW(other.parse("--format xml", false), CLI::ValidationError);
  EXPECT_EQ(g, OutputFormat::Table);
}

}  // namespace
}  // namespace topotune::cli
