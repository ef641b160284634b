#pragma once
// closest_name: "did you mean …?" for a mistyped command, flag or name. The candidate with the
// smallest edit distance (insertions, deletions, substitutions and swaps of two adjacent
// characters, each 1: the optimal string alignment distance) wins,
// if it is close enough to be a plausible typo: at most a third of the longer word's length
// (at least 1, at most 3 edits). Ties go to the earlier candidate, so the answer is
// deterministic for a fixed candidate order.

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace topotune {

/// The optimal string alignment distance between `a` and `b` (bytes, not code points).
int edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` when it is a plausible typo of it; nothing otherwise
/// (also when `word` equals a candidate: nothing to suggest).
std::optional<std::string> closest_name(std::string_view word,
                                        std::span<const std::string> candidates);

}  // namespace topotune
