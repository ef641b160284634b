#pragma once
// Integer flags are decimal: CLI11 converts integers with strtoll(..., base 0), which reads
// "--nodes 010" as octal 8 and "0x10" as 16. Every integer option of every subcommand gets a
// check that accepts [+-]digits only and drops leading zeros, so "010" is 10.

namespace CLI {
class App;
}

namespace topotune::cli {

/// Makes every integer option of `app` and of its subcommands decimal-only (see above).
/// Call after the options are declared.
void require_decimal_integers(CLI::App& app);

}  // namespace topotune::cli
