#include "cli/decimal_options.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace topotune::cli {
namespace {

// "" when `text` is [+-]digits, rewritten without leading zeros; else the reason.
std::string to_plain_decimal(std::string& text) {
  std::size_t i = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
  if (i == text.size()) return "'" + text + "' is not a whole decimal number";
  for (std::size_t j = i; j < text.size(); ++j) {
    if (!std::isdigit(static_cast<unsigned char>(text[j]))) {
      return "'" + text + "' is not a whole decimal number";
    }
  }
  const std::size_t first = text.find_first_not_of('0', i);
  text = text.substr(0, i) + (first == std::string::npos ? "0" : text.substr(first));
  // Every integer flag is an int; 11 characters hold "-2147483648" and fewer digits.
  const bool fits = text.size() <= 11 && std::stoll(text) >= std::numeric_limits<int>::min() &&
                    std::stoll(text) <= std::numeric_limits<int>::max();
  if (!fits) {
    return "'" + text + "' is out of range (an integer flag holds " +
           std::to_string(std::numeric_limits<int>::min()) + " to " +
           std::to_string(std::numeric_limits<int>::max()) + ")";
  }
  return {};
}

bool is_integer_option(const CLI::Option& opt) {
  const std::string type = opt.get_type_name();
  return type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0;
}

}  // namespace

CLI::Validator finite_range(double lo, double hi) {
  char range[64];
  std::snprintf(range, sizeof range, "[%g, %g]", lo, hi);
  return CLI::Validator(
      [lo, hi, range = std::string(range)](std::string& text) -> std::string {
        double v = 0;
        const bool number = CLI::detail::lexical_cast(text, v);
        if (number && std::isfinite(v) && v >= lo && v <= hi) return {};
        return "'" + text + "' must be a finite number in " + range;
      },
      std::string("FLOAT in ") + range);
}

void require_decimal_integers(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (is_integer_option(*opt)) opt->transform(CLI::Validator(to_plain_decimal, ""));
  }
  for (CLI::App* sub : app.get_subcommands({})) require_decimal_integers(*sub);
}

}  // namespace topotune::cli
