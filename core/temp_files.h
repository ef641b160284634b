#pragma once
// Temporary files that must not outlive the process when it is interrupted: the safe writer
// (file_output.h) registers each temp file it creates, and SIGINT, SIGTERM or SIGHUP removes
// every registered file before the process ends as the signal would have ended it (the
// default action, re-raised). The handler only calls unlink, sigaction and raise
// (async-signal-safe) on names stored beforehand in static storage; it is installed on the
// first registration, and a signal that was ignored (nohup's SIGHUP) stays ignored.
// SIGKILL cannot be caught: after `kill -9` a hidden `.NAME.tmp.XXXXXX` may remain.

#include <csignal>
#include <string>

namespace topotune {

/// One registered temp file; unregisters (never removes) it on destruction. Move-only.
class TempFileGuard {
 public:
  /// Registers `path` for removal on SIGINT/SIGTERM/SIGHUP. At most kSlots files are
  /// registered at once (a set written by file_output.h has a handful); a path longer than
  /// kPathMax, or a registration past the slots, is not registered (the file is still removed
  /// on every normal path, only not on a signal).
  explicit TempFileGuard(const std::string& path);
  TempFileGuard(TempFileGuard&& other) noexcept;
  TempFileGuard& operator=(TempFileGuard&&) = delete;
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  ~TempFileGuard();

  static constexpr int kSlots = 64;
  static constexpr std::size_t kPathMax = 4096;

 private:
  int slot_ = -1;
};

/// Blocks SIGINT, SIGTERM and SIGHUP for its lifetime (the calling thread), so that a commit
/// of several renames completes or rolls back before such a signal is acted on; the signal is
/// delivered when the previous mask is restored.
class DeferTerminationSignals {
 public:
  DeferTerminationSignals();
  ~DeferTerminationSignals();
  DeferTerminationSignals(const DeferTerminationSignals&) = delete;
  DeferTerminationSignals& operator=(const DeferTerminationSignals&) = delete;

 private:
  sigset_t previous_{};
};

}  // namespace topotune
