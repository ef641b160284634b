#pragma once
// Flags that name a file or a directory refuse an empty value: `--trace "$OUT"` or
// `--dir "$DIR"` with the variable unset must not mean "no trace" or "/", it is an error
// (exit 2) before any work.

namespace CLI {
class Validator;
}

namespace topotune::cli {

/// The CLI11 check every path flag carries: an empty value is refused with "the path is
/// empty".
const CLI::Validator& non_empty_path();

}  // namespace topotune::cli
