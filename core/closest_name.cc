#include "core/closest_name.h"

#include <algorithm>
#include <vector>

namespace topotune {

int edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: Levenshtein plus the swap of two adjacent characters as one
  // edit, the commonest typo ("plna"). d[i][j] = distance between a[0, i) and b[0, j).
  const std::size_t n = a.size(), m = b.size();
  std::vector<int> d((n + 1) * (m + 1));
  const auto at = [m, &d](std::size_t i, std::size_t j) -> int& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i) at(i, 0) = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) at(0, j) = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(n, m);
}

std::optional<std::string> closest_name(std::string_view word,
                                        std::span<const std::string> candidates) {
  // Long inputs (a pasted file, say) are not typos of a name: skip the quadratic work.
  constexpr std::size_t kLongest = 64;
  if (word.empty() || word.size() > kLongest) return std::nullopt;
  std::optional<std::string> best;
  int best_distance = 0;
  for (const std::string& c : candidates) {
    if (c == word) return std::nullopt;
    const int d = edit_distance(word, c);
    const int longer = static_cast<int>(std::max(word.size(), c.size()));
    const int allowed = std::clamp(longer / 3, 1, 3);
    if (d <= allowed && (!best || d < best_distance)) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace topotune
