#pragma once
// Integer flags are decimal: CLI11 converts integers with strtoll(..., base 0), which reads
// "--nodes 010" as octal 8 and "0x10" as 16. Every integer option of every subcommand gets a
// check that accepts [+-]digits only and drops leading zeros, so "010" is 10, and that the
// value fits an int (every integer flag is one): past it CLI11 itself said only "At Most 1
// required but received 2". Floating-point flags get finite_range: CLI11's own range and
// sign checks let NaN through, as every comparison with NaN is false.

namespace CLI {
class App;
class Validator;
}  // namespace CLI

namespace topotune::cli {

/// Makes every integer option of `app` and of its subcommands decimal-only (see above).
/// Call after the options are declared.
void require_decimal_integers(CLI::App& app);

/// A check for a floating-point flag: a finite number in [lo, hi] ("must be a finite number
/// in [lo, hi]" otherwise, NaN and inf included).
CLI::Validator finite_range(double lo, double hi);

}  // namespace topotune::cli
