#pragma once
// --format, parsed once: every command that prints a report adds the flag with
// add_format_option, which turns the text into an OutputFormat while the command line is
// parsed and refuses other values with one message ("--format: must be table or json, got
// 'xml'", exit 2). Commands then branch on the enum, never on the string.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/expected.h"

namespace topotune::cli {

/// How a command renders its result.
enum class OutputFormat { Table, Json, Csv, Dot, Markdown };

const char* output_format_name(OutputFormat f);  ///< "table", "json", "csv", "dot", "markdown"

/// `text` as one of `allowed`, or an error naming them ("must be table or json, got 'x'").
Expected<OutputFormat> parse_output_format(const std::string& text,
                                           const std::vector<OutputFormat>& allowed);

/// Adds --format to `sub`; the parsed value lands in `target` (whose value is the default).
CLI::Option* add_format_option(CLI::App& sub, OutputFormat& target,
                               std::vector<OutputFormat> allowed, const std::string& help);

}  // namespace topotune::cli
