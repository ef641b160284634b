#include "cli/path_flag.h"

#include <CLI/CLI.hpp>
#include <string>

namespace topotune::cli {

const CLI::Validator& non_empty_path() {
  static const CLI::Validator kCheck(
      [](const std::string& value) -> std::string {
        return value.empty() ? "the path is empty (an unset variable?)" : "";
      },
      "PATH");
  return kCheck;
}

}  // namespace topotune::cli
