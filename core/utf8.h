#pragma once
// UTF-8 checks for text that ends up in JSON output: nlohmann::json refuses to write invalid
// UTF-8 (a type_error), and a description typed in a Latin-1 terminal or a file name from an
// old file system can carry it. Input is either refused (flags the user typed) or repaired
// (names topotune only quotes).

#include <string>
#include <string_view>

namespace topotune {

/// Whether `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
/// U+10FFFF).
bool is_valid_utf8(std::string_view text);

/// `text` with every byte that is not part of a well-formed UTF-8 sequence replaced by U+FFFD.
std::string to_valid_utf8(std::string_view text);

}  // namespace topotune
