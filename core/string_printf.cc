#include "core/string_printf.h"

#include <cstdarg>
#include <cstdio>

namespace topotune {

std::string string_printf(const char* fmt, ...) {
  std::va_list args;
  va_start(args, fmt);
  std::va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  std::string out;
  if (n > 0) {
    out.resize(static_cast<std::size_t>(n));
    // vsnprintf writes n characters and a terminating NUL: the string's own buffer has room
    // for it (data()[size()] is writable since C++11 as long as it is set back to '\0').
    std::vsnprintf(out.data(), out.size() + 1, fmt, again);
  }
  va_end(again);
  return out;
}

}  // namespace topotune
