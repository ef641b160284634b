#pragma once
// Reporters: one result model, every format, as google/benchmark's ConsoleReporter,
// CSVReporter and JSONReporter render the same runs. A command declares its rows once (typed
// cells under named columns) and hands them to the Reporter of the chosen --format:
//  - the table reporter prints the command's preamble lines (titles, '#' headers), then each
//    row through its columns' printf fragments (fixed widths, nccl-tests style), any notes
//    under a row, and the footer lines (summaries, verdicts);
//  - the CSV reporter prints one header row of column names, then one line per row: integers
//    as integers, doubles at full precision (the shortest text that reads back to the same
//    double), text quoted when it holds a comma, a quote or a line break (RFC 4180). Titles,
//    notes and footers are table-only: a CSV file is the rows and nothing else;
//  - the JSON reporter writes one document: the layout's `json_head` fields in order, then
//    the rows under `json_rows` ("rows" unless the command's schema names them otherwise),
//    each an object whose keys are the data columns' names in column order (integers as
//    integers, doubles at full precision, text as strings) followed by the row's extras (the
//    command's nested results, e.g. predict --explain's "candidates"), then the fields of the
//    footer object `end` is given (summaries, verdicts). Table-only columns, notes, preamble
//    and footer lines are not in it.
// The table and CSV write each row as it is added (measure reports each point when it is
// measured); the JSON reporter keeps the document and writes it at `end`, since a JSON
// document is of use only whole. Library-owned schemas (a plan, a schedule, a topology, a
// measurement file) are written by their library's writer, not through this model.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "cli/output_format.h"

namespace topotune::cli {

/// One column: its name (the CSV header and the JSON key) and its table fragment. The
/// fragment is a printf format with one conversion for the cell (%lld for integers, a floating
/// conversion for doubles, %s for text) and the separator text before it, so that the
/// fragments of a row concatenate to the line the command always printed.
struct Column {
  std::string name;          ///< CSV header and JSON key, e.g. "time_us"
  std::string table_format;  ///< e.g. "  %10.2f"; empty: the column is CSV and JSON only
  bool data = true;  ///< false: table-only (a derived or composite text), not in CSV or JSON
};

/// A cell of a row: an integer, a double or text.
using Cell = std::variant<std::int64_t, double, std::string>;

/// What a reporter renders around the rows.
struct TableLayout {
  std::vector<std::string> preamble;  ///< table-only lines before the rows, each with its '\n'
  std::vector<Column> columns;
  /// JSON-only: the document's fields before the rows, in order (instance, nodes, ...).
  nlohmann::ordered_json json_head = nlohmann::ordered_json::object();
  std::string json_rows = "rows";  ///< JSON-only: the key of the rows' array
};

/// Renders rows of one layout to a stream.
class Reporter {
 public:
  virtual ~Reporter() = default;
  /// The table, CSV or JSON reporter for `format` (Table for any other).
  static std::unique_ptr<Reporter> make(OutputFormat format, std::ostream& out);

  /// Starts the report: the preamble (table), the header row (CSV), the head fields (JSON).
  virtual void begin(const TableLayout& layout) = 0;
  /// One row, its cells in the layout's column order; `notes` are table-only lines after it;
  /// `extras` (null or an object) are JSON-only fields after the columns' (no column's name).
  virtual void row(const std::vector<Cell>& cells, const std::vector<std::string>& notes = {},
                   const nlohmann::ordered_json& extras = nullptr) = 0;
  /// Ends the report; `footer` lines are table-only, `json_tail` (null or an object) holds
  /// the JSON document's fields after the rows (no head field's name, not the rows' key).
  virtual void end(const std::vector<std::string>& footer = {},
                   const nlohmann::ordered_json& json_tail = nullptr) = 0;
};

/// The table line of `cells` under `columns` (with its '\n'); what the table reporter prints.
std::string table_line(const std::vector<Column>& columns, const std::vector<Cell>& cells);

/// The CSV line of `cells` (with its '\n'); what the CSV reporter prints for a row.
std::string csv_line(const std::vector<Column>& columns, const std::vector<Cell>& cells);

/// The JSON object of `cells`: the data columns' names and values, in column order.
nlohmann::ordered_json json_row(const std::vector<Column>& columns, const std::vector<Cell>& cells);

}  // namespace topotune::cli
