// The watchdog reports a stall once, with the last place it was told, and never while it is
// kicked or after it is destroyed.

#include "runtime/watchdog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace topotune::rt {
namespace {

/// Records the stall reports of a watchdog.
struct StallLog {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::string> places;

  Watchdog::OnStall callback() {
    return [this](const std::string& where) {
      std::lock_guard lock(mutex);
      places.push_back(where);
      cv.notify_all();
    };
  }
  bool wait_for_one(std::chrono::seconds limit) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, limit, [this] { return !places.empty(); });
  }
  std::size_t count() {
    std::lock_guard lock(mutex);
    return places.size();
  }
};

TEST(Watchdog, ReportsTheLastPlaceOnceAfterTheTimeout) {
  StallLog log;
  const auto start = std::chrono::steady_clock::now();
  Watchdog w(Seconds(0.05), log.callback());
  w.kick("ring 1M iteration 3");
  ASSERT_TRUE(log.wait_for_one(std::chrono::seconds(30)));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(log.count(), 1u);  // once, then it stops watching
  EXPECT_EQ(log.places[0], "ring 1M iteration 3");
}

TEST(Watchdog, BeforeAnyKickThePlaceIsStarting) {
  StallLog log;
  Watchdog w(Seconds(0.01), log.callback());
  ASSERT_TRUE(log.wait_for_one(std::chrono::seconds(30)));
  EXPECT_EQ(log.places[0], "starting");
}

TEST(Watchdog, StaysQuietWhileKicked) {
  StallLog log;
  {
    Watchdog w(Seconds(0.5), log.callback());
    // Three timeouts' worth of progress, one kick every 10 ms.
    for (int i = 0; i < 150; ++i) {
      w.kick("iteration " + std::to_string(i));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }  // destroyed well inside a timeout of the last kick: no report either
  EXPECT_EQ(log.count(), 0u);
}

}  // namespace
}  // namespace topotune::rt
