#pragma once
// Reporters: one result model, several renderings, as google/benchmark's ConsoleReporter and
// CSVReporter render the same runs. A command describes its rows once (typed cells under named
// columns) and hands them to the Reporter of the chosen --format:
//  - the table reporter prints the command's preamble lines (titles, '#' headers), then each
//    row through its columns' printf fragments (fixed widths, nccl-tests style), any notes
//    under a row, and the footer lines (summaries, verdicts);
//  - the CSV reporter prints one header row of column names, then one line per row: integers
//    as integers, doubles at full precision (the shortest text that reads back to the same
//    double), text quoted when it holds a comma, a quote or a line break (RFC 4180). Titles,
//    notes and footers are table-only: a CSV file is the rows and nothing else.
// Rows are written as they are added (measure reports each point when it is measured). JSON
// is each command's own schema (its library's writer), not a rendering of this model.

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "cli/output_format.h"

namespace topotune::cli {

/// One column: its CSV name and its table fragment. The fragment is a printf format with one
/// conversion for the cell (%lld for integers, a floating conversion for doubles, %s for text)
/// and the separator text before it, so that the fragments of a row concatenate to the line
/// the command always printed.
struct Column {
  std::string name;          ///< CSV header, e.g. "time_us"
  std::string table_format;  ///< e.g. "  %10.2f"; empty: the column is CSV-only
  bool csv = true;           ///< false: the column is table-only (a derived or composite text)
};

/// A cell of a row: an integer, a double or text.
using Cell = std::variant<std::int64_t, double, std::string>;

/// What a reporter renders around the rows.
struct TableLayout {
  std::vector<std::string> preamble;  ///< table-only lines before the rows, each with its '\n'
  std::vector<Column> columns;
};

/// Renders rows of one layout to a stream.
class Reporter {
 public:
  virtual ~Reporter() = default;
  /// The table reporter for OutputFormat::Table, the CSV reporter for OutputFormat::Csv.
  static std::unique_ptr<Reporter> make(OutputFormat format, std::ostream& out);

  /// Starts the report: the preamble (table) or the header row (CSV).
  virtual void begin(const TableLayout& layout) = 0;
  /// One row, its cells in the layout's column order; `notes` are table-only lines after it.
  virtual void row(const std::vector<Cell>& cells, const std::vector<std::string>& notes = {}) = 0;
  /// Ends the report; `footer` lines are table-only.
  virtual void end(const std::vector<std::string>& footer = {}) = 0;
};

/// The table line of `cells` under `columns` (with its '\n'); what the table reporter prints.
std::string table_line(const std::vector<Column>& columns, const std::vector<Cell>& cells);

/// The CSV line of `cells` (with its '\n'); what the CSV reporter prints for a row.
std::string csv_line(const std::vector<Column>& columns, const std::vector<Cell>& cells);

}  // namespace topotune::cli
