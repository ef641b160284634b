#include "runtime/process_cpu.h"

#include <sys/resource.h>

namespace topotune::rt {

Seconds process_cpu_time() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);  // RUSAGE_SELF on this process cannot fail (EFAULT/EINVAL only)
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return Seconds(seconds(u.ru_utime) + seconds(u.ru_stime));
}

}  // namespace topotune::rt
