#include "runtime/watchdog.h"

namespace topotune::rt {

Watchdog::Watchdog(Seconds timeout, OnStall on_stall)
    : timeout_(timeout), on_stall_(std::move(on_stall)) {
  thread_ = std::thread([this] { loop(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Watchdog::kick(std::string where) {
  std::lock_guard lock(mutex_);
  where_ = std::move(where);
  last_ = std::chrono::steady_clock::now();
}

void Watchdog::loop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    const auto deadline = last_ + std::chrono::duration<double>(timeout_.value);
    if (std::chrono::steady_clock::now() >= deadline) {
      const std::string where = where_;
      lock.unlock();  // on_stall may take its time (or never return); kick() must not block
      on_stall_(where);
      return;
    }
    cv_.wait_until(lock,
                   std::chrono::time_point_cast<std::chrono::steady_clock::duration>(deadline));
  }
}

}  // namespace topotune::rt
