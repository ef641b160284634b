#pragma once
// 64-bit FNV-1a (Fowler, Noll, Vo; the offset basis and prime of the reference at
// http://www.isthe.com/chongo/tech/comp/fnv/): a checksum that tells whether a text changed.
// It detects edits, not tampering: anyone can compute it, so it is no security boundary. The
// project needs no cryptographic hash and takes no dependency for one.

#include <cstdint>
#include <string_view>

namespace topotune {

/// The 64-bit FNV-1a hash of `bytes`.
constexpr std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64-bit offset basis
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;  // FNV 64-bit prime
  }
  return h;
}

}  // namespace topotune
