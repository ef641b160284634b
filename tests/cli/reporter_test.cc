// The reporters: the table is the columns' printf fragments joined, the CSV one header row
// and one line per row with values that read back exactly, the JSON one document of the
// layout's head, the rows (the data columns by name, then each row's extras) and the tail.

#include "cli/reporter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace topotune::cli {
namespace {

TableLayout layout() {
  return {{"# title\n", "#  size  name      time\n"},
          {{"bytes", "%7lld"},
           {"name", "  %-8s"},
           {"time_us", "  %6.2f"},
           {"count", "", true},           // CSV-only
           {"label", "  [%s]", false}}};  // table-only
}

TEST(Reporter, TableJoinsTheFragmentsWithPreambleNotesAndFooter) {
  std::ostringstream out;
  auto r = Reporter::make(OutputFormat::Table, out);
  r->begin(layout());
  r->row({std::int64_t{1024}, std::string("ring"), 12.345, std::int64_t{256}, std::string("x")},
         {"#   note\n"});
  r->row({std::int64_t{1} << 40, std::string("a-long-name"), 0.5, std::int64_t{0}, std::string()});
  r->end({"# summary\n"});
  EXPECT_EQ(out.str(),
            "# title\n"
            "#  size  name      time\n"
            "   1024  ring       12.35  [x]\n"
            "#   note\n"
            "1099511627776  a-long-name    0.50  []\n"  // widths are minimums: nothing is cut
            "# summary\n");
}

TEST(Reporter, CsvIsTheRowsOnlyWithExactValues) {
  std::ostringstream out;
  auto r = Reporter::make(OutputFormat::Csv, out);
  r->begin(layout());
  const double third = 1.0 / 3.0;
  r->row({std::int64_t{1024}, std::string("ring"), third, std::int64_t{256}, std::string("x")},
         {"# not in CSV\n"});
  r->row({std::int64_t{-5}, std::string("a,b \"c\"\nd"), 1e300, std::int64_t{0}, std::string()});
  r->end({"# nor this\n"});
  std::istringstream lines(out.str());
  std::string header, first;
  std::getline(lines, header);
  std::getline(lines, first);
  EXPECT_EQ(header, "bytes,name,time_us,count");
  EXPECT_EQ(first.substr(0, 10), "1024,ring,");
  // The double reads back to the same value (shortest round-trip text).
  const std::string t = first.substr(10, first.rfind(',') - 10);
  EXPECT_EQ(std::strtod(t.c_str(), nullptr), third) << t;
  EXPECT_EQ(first.substr(first.rfind(',')), ",256");
  // Commas, quotes and line breaks are quoted, quotes doubled (RFC 4180).
  EXPECT_NE(out.str().find("-5,\"a,b \"\"c\"\"\nd\",1e+300,0\n"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find('#'), std::string::npos);
}

TEST(Reporter, TableLineAndCsvLineAreTheReportersRows) {
  const TableLayout l = layout();
  const std::vector<Cell> cells = {std::int64_t{8}, std::string("tree"), 2.0, std::int64_t{2},
                                   std::string("y")};
  EXPECT_EQ(table_line(l.columns, cells), "      8  tree        2.00  [y]\n");
  EXPECT_EQ(csv_line(l.columns, cells), "8,tree,2,2\n");
}

TEST(Reporter, JsonIsTheHeadTheDataColumnsByNameWithExtrasAndTheTail) {
  std::ostringstream out;
  auto r = Reporter::make(OutputFormat::Json, out);
  TableLayout l = layout();
  l.json_head = {{"instance", "p4d"}, {"nodes", 2}};
  r->begin(l);
  const double third = 1.0 / 3.0;
  r->row({std::int64_t{1} << 53, std::string("ring"), third, std::int64_t{256}, std::string("x")},
         {"# not in JSON\n"}, {{"candidates", {{{"algorithm", "tree"}}}}});
  r->row(
      {std::int64_t{-5}, std::string("a\"b\\c\nd\te\x01"), 1e300, std::int64_t{0}, std::string()});
  r->end({"# nor this\n"}, {{"verdict", "healthy"}});
  const std::string text = out.str();
  EXPECT_EQ(text.find('#'), std::string::npos) << text;
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  // Head fields, then the rows, then the tail, in the order given.
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"instance", "nodes", "rows", "verdict"}));
  ASSERT_EQ(j["rows"].size(), 2u);
  const nlohmann::ordered_json& first = j["rows"][0];
  // The data columns in column order (the table-only "label" is not there), then the extras.
  keys.clear();
  for (const auto& [k, v] : first.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"bytes", "name", "time_us", "count", "candidates"}));
  // Integers stay integers (2^53 exactly), doubles read back to the same double, text is text.
  EXPECT_TRUE(first["bytes"].is_number_integer());
  EXPECT_EQ(first["bytes"].get<std::int64_t>(), std::int64_t{1} << 53);
  EXPECT_TRUE(first["time_us"].is_number_float());
  EXPECT_EQ(first["time_us"].get<double>(), third);
  EXPECT_EQ(first["name"], "ring");
  EXPECT_EQ(first["candidates"][0]["algorithm"], "tree");
  // Quotes, backslashes and control characters are escaped and read back as written.
  const nlohmann::ordered_json& second = j["rows"][1];
  EXPECT_EQ(second["name"].get<std::string>(), "a\"b\\c\nd\te\x01");
  EXPECT_NE(text.find(R"("a\"b\\c\nd\te\u0001")"), std::string::npos) << text;
  EXPECT_EQ(second["time_us"].get<double>(), 1e300);
  EXPECT_FALSE(second.contains("candidates"));
}

TEST(Reporter, JsonNamesTheRowsAsTheLayoutSaysAndReplacesBadUtf8) {
  std::ostringstream out;
  auto r = Reporter::make(OutputFormat::Json, out);
  TableLayout l{{}, {{"src", ""}, {"util", " %4.1f"}}};
  l.json_rows = "links";
  r->begin(l);
  r->row({std::string("gpu\xff"
                      "0"),
          0.5});  // not UTF-8 (a file name from the command line)
  r->end();
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(out.str());
  EXPECT_FALSE(j.contains("rows"));
  ASSERT_EQ(j["links"].size(), 1u);
  EXPECT_EQ(j["links"][0]["src"],
            "gpu\xEF\xBF\xBD"
            "0");  // U+FFFD
  EXPECT_EQ(j["links"][0]["util"], 0.5);
}

TEST(Reporter, JsonRowIsTheReportersRowObject) {
  const TableLayout l = layout();
  const std::vector<Cell> cells = {std::int64_t{8}, std::string("tree"), 2.0, std::int64_t{2},
                                   std::string("y")};
  EXPECT_EQ(json_row(l.columns, cells).dump(),
            R"({"bytes":8,"name":"tree","time_us":2.0,"count":2})");
}

TEST(ReporterDeath, JsonFieldDeclaredTwiceIsABug) {
  std::ostringstream out;
  auto r = Reporter::make(OutputFormat::Json, out);
  r->begin(layout());
  EXPECT_DEATH(r->row({std::int64_t{1}, std::string("a"), 1.0, std::int64_t{1}, std::string()}, {},
                      {{"bytes", 2}}),
               "declared twice");
}

}  // namespace
}  // namespace topotune::cli
