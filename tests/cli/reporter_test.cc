// The reporters: the table is the columns' printf fragments joined, the CSV one header row
// and one line per row with values that read back exactly.

#include "cli/reporter.h"

#include <gtest/gtest.h>

#include <cstdlib>
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

}  // namespace
}  // namespace topotune::cli
