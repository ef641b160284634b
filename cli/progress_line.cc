#include "cli/progress_line.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace topotune::cli {
namespace {

// A bad value falls back to the default: progress is a courtesy, not worth an error.
std::chrono::seconds interval_from_env() {
  constexpr long kDefault = 10;
  const char* env = std::getenv("TOPOTUNE_PROGRESS_SECONDS");
  if (env == nullptr) return std::chrono::seconds(kDefault);
  const std::string_view text(env);
  long s = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), s);
  if (ec != std::errc() || ptr != text.data() + text.size() || s < 0 || s > 86400) {
    return std::chrono::seconds(kDefault);
  }
  return std::chrono::seconds(s);
}

}  // namespace

ProgressLine::ProgressLine(std::string what)
    : what_(std::move(what)),
      start_(std::chrono::steady_clock::now()),
      interval_(interval_from_env()) {
  next_ = start_ + interval_;
}

void ProgressLine::update(long long count) {
  const auto now = std::chrono::steady_clock::now();
  if (now < next_) return;
  next_ = now + interval_;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "topotune: %s: %lld, %.0f s\n", what_.c_str(), count, elapsed);
}

}  // namespace topotune::cli
