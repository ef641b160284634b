#pragma once
// A progress line on stderr for work that can run long (calibrate on 10^5 rows: ~30 s).
// Quiet for short work, so tests and scripts see nothing: the first line comes after
// TOPOTUNE_PROGRESS_SECONDS (default 10) and then at most one every that many seconds.

#include <chrono>
#include <string>

namespace topotune::cli {

/// Reports `what` with a count and the elapsed time, when enough time has passed.
class ProgressLine {
 public:
  /// `what` names the work ("calibrate: loss evaluations"); the clock starts now.
  explicit ProgressLine(std::string what);
  /// Called as work advances; prints "topotune: <what>: N, T s" when the interval is over.
  void update(long long count);

 private:
  std::string what_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point next_;
  std::chrono::steady_clock::duration interval_;
};

}  // namespace topotune::cli
