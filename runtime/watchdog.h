#pragma once
// Watchdog: notices when a rank makes no progress for a given time (a peer died or hangs, and
// this rank waits in a collective forever) and reports it once, from its own thread.
//
// What happens then is the owner's choice: `topotune measure` prints the error and ends the
// process without MPI_Finalize (so mpirun ends the job, docs/runtime.md), tests record it.
// The watchdog never calls the transport: MPI runs with MPI_THREAD_FUNNELED.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/units.h"

namespace topotune::rt {

class Watchdog {
 public:
  /// Called once, on the watchdog's thread, with the last place kick() named, when `timeout`
  /// passed without a kick. It may end the process; if it returns, the watchdog stops.
  using OnStall = std::function<void(const std::string& where)>;

  /// Starts watching now; the place is "starting" until the first kick().
  Watchdog(Seconds timeout, OnStall on_stall);
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  /// Stops watching (without calling on_stall) and joins the thread.
  ~Watchdog();

  /// Progress: restarts the timeout; `where` names the step for the report.
  void kick(std::string where);

  Seconds timeout() const { return timeout_; }

 private:
  void loop();

  Seconds timeout_;
  OnStall on_stall_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::string where_ = "starting";
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::thread thread_;  // last: started once every other member is ready
};

}  // namespace topotune::rt
