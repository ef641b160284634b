#pragma once
// printf-style formatting into a std::string of exactly the needed length: the table and text
// reporters use it instead of fixed `char line[N]` buffers, which truncated long rows silently
// (a 1e308 time merged two rows of validate's table). GCC 12's libstdc++ has no std::format.

#include <string>

namespace topotune {

/// The text std::printf(fmt, ...) would print. The compiler checks the arguments against fmt.
std::string string_printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace topotune
