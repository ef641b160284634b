#include "cli/output_format.h"

#include <utility>

#include "core/enum_names.h"

namespace topotune::cli {
namespace {

// Each command accepts a subset (parse_output_format's `allowed`), so only the names come
// from here.
constexpr auto kFormatNames = enum_names<OutputFormat>({{OutputFormat::Table, "table"},
                                                        {OutputFormat::Json, "json"},
                                                        {OutputFormat::Csv, "csv"},
                                                        {OutputFormat::Dot, "dot"},
                                                        {OutputFormat::Markdown, "markdown"}});

}  // namespace

const char* output_format_name(OutputFormat f) { return kFormatNames.name_of(f); }

Expected<OutputFormat> parse_output_format(const std::string& text,
                                           const std::vector<OutputFormat>& allowed) {
  std::string names;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    if (text == output_format_name(allowed[i])) return allowed[i];
    names += i == 0 ? "" : (i + 1 == allowed.size() ? " or " : ", ");
    names += output_format_name(allowed[i]);
  }
  return fail(Errc::InvalidArgument, "must be " + names + ", got '" + text + "'");
}

CLI::Option* add_format_option(CLI::App& sub, OutputFormat& target,
                               std::vector<OutputFormat> allowed, const std::string& help) {
  CLI::Option* opt = sub.add_option_function<std::string>(
      "--format",
      [&target, allowed](const std::string& text) {
        target = parse_output_format(text, allowed).value();  // the check below ran first
      },
      help);
  std::string names;  // "{table,json}" in --help, as CLI::IsMember shows it
  for (OutputFormat f : allowed)
    names += (names.empty() ? "{" : ",") + std::string(output_format_name(f));
  opt->check(CLI::Validator(
      [allowed = std::move(allowed)](std::string& text) -> std::string {
        const Expected<OutputFormat> f = parse_output_format(text, allowed);
        return f ? std::string() : f.error().message;
      },
      names + "}"));
  opt->default_str(output_format_name(target));
  return opt;
}

}  // namespace topotune::cli
