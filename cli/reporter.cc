#include "cli/reporter.h"

#include <charconv>
#include <cstdio>
#include <type_traits>

#include "core/assert.h"
#include "core/string_printf.h"

namespace topotune::cli {
namespace {

// The fragment is data, not a literal: the type of its one conversion is the column's
// contract with its cells (a mismatch shows in every test of the command's output).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
template <class T>
std::string printf_one(const std::string& fragment, T value) {
  const int n = std::snprintf(nullptr, 0, fragment.c_str(), value);
  TT_ASSERT(n >= 0, "bad table fragment '%s'", fragment.c_str());
  std::string out(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), fragment.c_str(), value);
  out.pop_back();
  return out;
}
#pragma GCC diagnostic pop

std::string format_cell(const std::string& fragment, const Cell& cell) {
  return std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return printf_one(fragment, v.c_str());
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return printf_one(fragment, static_cast<long long>(v));
        } else {
          return printf_one(fragment, v);
        }
      },
      cell);
}

std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string csv_cell(const Cell& cell) {
  if (const auto* s = std::get_if<std::string>(&cell)) return csv_text(*s);
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return std::to_string(*i);
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, std::get<double>(cell));
  return std::string(buf, r.ptr);
}

class TableReporter final : public Reporter {
 public:
  explicit TableReporter(std::ostream& out) : out_(out) {}
  void begin(const TableLayout& layout) override {
    columns_ = layout.columns;
    for (const std::string& line : layout.preamble) out_ << line;
    out_ << std::flush;
  }
  void row(const std::vector<Cell>& cells, const std::vector<std::string>& notes,
           const nlohmann::ordered_json&) override {
    out_ << table_line(columns_, cells);
    for (const std::string& line : notes) out_ << line;
    out_ << std::flush;
  }
  void end(const std::vector<std::string>& footer, const nlohmann::ordered_json&) override {
    for (const std::string& line : footer) out_ << line;
  }

 private:
  std::ostream& out_;
  std::vector<Column> columns_;
};

class CsvReporter final : public Reporter {
 public:
  explicit CsvReporter(std::ostream& out) : out_(out) {}
  void begin(const TableLayout& layout) override {
    columns_ = layout.columns;
    std::string header;
    for (const Column& c : columns_) {
      if (c.data) header += (header.empty() ? "" : ",") + csv_text(c.name);
    }
    out_ << header << "\n" << std::flush;
  }
  void row(const std::vector<Cell>& cells, const std::vector<std::string>&,
           const nlohmann::ordered_json&) override {
    out_ << csv_line(columns_, cells) << std::flush;
  }
  void end(const std::vector<std::string>&, const nlohmann::ordered_json&) override {}

 private:
  std::ostream& out_;
  std::vector<Column> columns_;
};

// Adds the fields of `more` (null or an object) to the object `to`. A name already there is
// a bug of the command (two declarations of one field), not something to overwrite.
void add_fields(nlohmann::ordered_json& to, const nlohmann::ordered_json& more) {
  if (more.is_null()) return;
  TT_ASSERT(more.is_object(), "JSON extras must be an object, got %s", more.type_name());
  for (const auto& [key, value] : more.items()) {
    TT_ASSERT(!to.contains(key), "JSON field '%s' is declared twice", key.c_str());
    to[key] = value;
  }
}

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(std::ostream& out) : out_(out) {}
  void begin(const TableLayout& layout) override {
    columns_ = layout.columns;
    rows_key_ = layout.json_rows;
    doc_ = nlohmann::ordered_json::object();
    add_fields(doc_, layout.json_head);
    TT_ASSERT(!doc_.contains(rows_key_), "JSON field '%s' is declared twice", rows_key_.c_str());
    doc_[rows_key_] = nlohmann::ordered_json::array();
  }
  void row(const std::vector<Cell>& cells, const std::vector<std::string>&,
           const nlohmann::ordered_json& extras) override {
    nlohmann::ordered_json j = json_row(columns_, cells);
    add_fields(j, extras);
    doc_[rows_key_].push_back(std::move(j));
  }
  void end(const std::vector<std::string>&, const nlohmann::ordered_json& json_tail) override {
    add_fields(doc_, json_tail);
    // Text from the command line (paths, cluster names) need not be UTF-8: replaced, never
    // thrown on.
    out_ << doc_.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n"
         << std::flush;
  }

 private:
  std::ostream& out_;
  std::vector<Column> columns_;
  std::string rows_key_;
  nlohmann::ordered_json doc_;
};

}  // namespace

std::unique_ptr<Reporter> Reporter::make(OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::Csv) return std::make_unique<CsvReporter>(out);
  if (format == OutputFormat::Json) return std::make_unique<JsonReporter>(out);
  return std::make_unique<TableReporter>(out);
}

std::string table_line(const std::vector<Column>& columns, const std::vector<Cell>& cells) {
  TT_ASSERT(columns.size() == cells.size(), "%zu cells for %zu columns", cells.size(),
            columns.size());
  std::string line;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (!columns[i].table_format.empty()) line += format_cell(columns[i].table_format, cells[i]);
  }
  return line + "\n";
}

std::string csv_line(const std::vector<Column>& columns, const std::vector<Cell>& cells) {
  TT_ASSERT(columns.size() == cells.size(), "%zu cells for %zu columns", cells.size(),
            columns.size());
  std::string line;
  bool first = true;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (!columns[i].data) continue;
    line += (first ? "" : ",") + csv_cell(cells[i]);
    first = false;
  }
  return line + "\n";
}

nlohmann::ordered_json json_row(const std::vector<Column>& columns,
                                const std::vector<Cell>& cells) {
  TT_ASSERT(columns.size() == cells.size(), "%zu cells for %zu columns", cells.size(),
            columns.size());
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (!columns[i].data) continue;
    TT_ASSERT(!j.contains(columns[i].name), "column '%s' twice", columns[i].name.c_str());
    std::visit([&](const auto& v) { j[columns[i].name] = v; }, cells[i]);
  }
  return j;
}

}  // namespace topotune::cli
