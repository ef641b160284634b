#include "core/temp_files.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace topotune {
namespace {

/// A registered name. `live` is set only once `path` is complete, so the handler never reads
/// a name being written; `used` reserves the slot.
struct Slot {
  std::atomic<bool> used{false};
  std::atomic<bool> live{false};
  char path[TempFileGuard::kPathMax + 1] = {};
};

Slot g_slots[TempFileGuard::kSlots];
// Commits in progress (DeferTerminationSignals) and a signal that arrived meanwhile in a
// thread that did not block it: acted on when the last commit ends.
std::atomic<int> g_deferring{0};
std::atomic<int> g_pending{0};
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the signal handler relies on lock-free atomics");

/// Removes the registered files and ends the process with `sig`'s default action.
void remove_and_reraise(int sig) {
  for (Slot& s : g_slots) {
    if (s.live.load()) ::unlink(s.path);
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  // `sig` is blocked while its handler runs, so the default action happens on return.
  ::raise(sig);
}

void on_termination(int sig) {
  const int saved = errno;
  if (g_deferring.load() > 0) {
    g_pending.store(sig);
    // The last commit may have ended between the load and the store: then nobody else will.
    if (g_deferring.load() == 0 && g_pending.exchange(0) != 0) remove_and_reraise(sig);
  } else {
    remove_and_reraise(sig);
  }
  errno = saved;
}

/// Installs the handler where the disposition is the default one: an ignored signal stays
/// ignored, and a handler the program installed itself (an MPI library's) is kept.
void install_handlers() {
  for (const int sig : kSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = on_termination;
    sigemptyset(&sa.sa_mask);
    for (const int other : kSignals) sigaddset(&sa.sa_mask, other);
    ::sigaction(sig, &sa, nullptr);
  }
}

sigset_t termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (const int sig : kSignals) sigaddset(&set, sig);
  return set;
}

}  // namespace

TempFileGuard::TempFileGuard(const std::string& path) {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
  if (path.size() > kPathMax) return;
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!g_slots[i].used.compare_exchange_strong(expected, true)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].live.store(true);
    slot_ = i;
    return;
  }
}

TempFileGuard::TempFileGuard(TempFileGuard&& other) noexcept : slot_(other.slot_) {
  other.slot_ = -1;
}

TempFileGuard::~TempFileGuard() {
  if (slot_ < 0) return;
  g_slots[slot_].live.store(false);
  g_slots[slot_].used.store(false);
}

DeferTerminationSignals::DeferTerminationSignals() {
  g_deferring.fetch_add(1);
  const sigset_t set = termination_signals();
  ::pthread_sigmask(SIG_BLOCK, &set, &previous_);
}

DeferTerminationSignals::~DeferTerminationSignals() {
  if (g_deferring.fetch_sub(1) == 1) {
    const int sig = g_pending.exchange(0);
    if (sig != 0) remove_and_reraise(sig);  // it arrived in another thread meanwhile
  }
  ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

}  // namespace topotune
