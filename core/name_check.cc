#include "core/name_check.h"

#include <cstdio>

namespace topotune {
namespace {

bool is_printable_ascii(char c) { return c >= 0x20 && c < 0x7f; }

std::string hex_escape(char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
  return buf;
}

}  // namespace

bool is_name_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case ' ':
    case '.':
    case '_':
    case '-':
    case '+':
    case ':':
    case '/':
    case '(':
    case ')':
    case ',':
      return true;
    default:
      return false;
  }
}

Expected<void> check_name(std::string_view name, std::string_view what) {
  const std::string shown = "'" + display_text(name) + "'";
  if (name.empty()) return fail(Errc::InvalidArgument, std::string(what) + " must not be empty");
  if (name.size() > kMaxNameLength) {
    return fail(Errc::InvalidArgument, std::string(what) + " " + shown + " is " +
                                           std::to_string(name.size()) + " characters, more than " +
                                           std::to_string(kMaxNameLength));
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (is_name_char(name[i])) continue;
    const std::string ch = is_printable_ascii(name[i]) && name[i] != '\\'
                               ? "'" + std::string(1, name[i]) + "'"
                               : hex_escape(name[i]);
    return fail(Errc::InvalidArgument, std::string(what) + " " + shown + " has " + ch +
                                           " at position " + std::to_string(i + 1) +
                                           "; a name may hold " + std::string(kNameCharacters));
  }
  return {};
}

std::string display_text(std::string_view text) {
  constexpr std::size_t kShown = 80;
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kShown; ++i) {
    const char c = text[i];
    if (c == '\\') {
      out += "\\\\";
    } else if (is_printable_ascii(c)) {
      out += c;
    } else {
      out += hex_escape(c);
    }
  }
  if (text.size() > kShown) out += "...";
  return out;
}

std::string terminal_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += hex_escape(c);
    } else {
      out += c;
    }
  }
  return out;
}

std::string comment_text(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (!is_name_char(c)) c = '?';
  }
  return out;
}

std::string python_string_literal(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (is_printable_ascii(c)) {
      out += c;
    } else {
      out += hex_escape(c);
    }
  }
  return out + "\"";
}

std::string shell_quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace topotune
