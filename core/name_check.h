#pragma once
// Names that travel from input into files a user runs. A model profile's or a cluster file's
// name ends up after `#` in nccl.env and torchrun.sh (which bash sources) and inside string
// literals of the emitted Python; a name with a newline, a quote or `$(...)` in it would turn
// those files into code chosen by whoever wrote the shared input. Names are therefore checked
// where they enter (check_name: a closed character set and a length) and made safe again where
// they leave (comment_text, python_string_literal, shell_quoted), so a name that slipped past
// one side is still data on the other. display_text escapes a name for an error message, so
// a refused name cannot reach the terminal as escape sequences either.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace topotune {

/// The longest name accepted (the catalog's instance-name limit).
inline constexpr std::size_t kMaxNameLength = 128;

/// The characters a name may hold, as a message says them.
inline constexpr std::string_view kNameCharacters = "letters, digits, space and . _ - + : / ( ) ,";

/// Whether `c` may appear in a name: ASCII letters and digits, space, and ._-+:/(),
bool is_name_char(char c);

/// Ok when `name` is 1..kMaxNameLength characters of kNameCharacters. Otherwise
/// Errc::InvalidArgument naming `what` ("model profile name"), the offending character and its
/// position, with the name shown through display_text.
Expected<void> check_name(std::string_view name, std::string_view what);

/// `text` for a message: printable ASCII as is, a backslash as "\\", every other byte as
/// "\xNN" (newlines, escape sequences and UTF-8 alike), cut after 80 bytes with "...".
std::string display_text(std::string_view text);

/// `text` for a terminal: control characters (bytes below 0x20 and 0x7f: newlines, escape
/// sequences) as "\xNN", everything else, UTF-8 included, as is. For error messages that may
/// quote input.
std::string terminal_text(std::string_view text);

/// `text` for a one-line comment in a shell, env or Python file: every character outside the
/// name set becomes '?', so no newline can end the comment.
std::string comment_text(std::string_view text);

/// `text` as a Python string literal in double quotes: `"`, `\` and every byte outside
/// printable ASCII escaped (\xNN), so the literal is one line and evaluates to `text`'s bytes
/// (for ASCII text, exactly `text`).
std::string python_string_literal(std::string_view text);

/// `text` as one POSIX shell word: single-quoted, each `'` written as `'\''`.
std::string shell_quoted(std::string_view text);

}  // namespace topotune
