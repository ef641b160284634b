#pragma once
// TT_ASSERT: for bugs, not for bad input (bad input is an Error in an Expected).
// Stays on in release builds, like benchmark's BM_CHECK and SimGrid's xbt_assert: a wrong
// prediction silently produced is worse than an abort with a file and line.

#include <cstdio>
#include <cstdlib>

#define TT_ASSERT(cond, ...)                                                                       \
  do {                                                                                             \
    if (!(cond)) [[unlikely]] {                                                                    \
      std::fprintf(stderr, "topotune: internal error at %s:%d: assertion `%s` failed: ", __FILE__, \
                   __LINE__, #cond);                                                               \
      std::fprintf(stderr, __VA_ARGS__);                                                           \
      std::fprintf(stderr, "\n");                                                                  \
      std::abort();                                                                                \
    }                                                                                              \
  } while (0)
