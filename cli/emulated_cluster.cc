#include "cli/emulated_cluster.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <sstream>
#include <thread>

#include "core/process.h"

namespace topotune::cli {
namespace {

constexpr const char* kSubnet = "198.18.0.0/24";
constexpr const char* kAddrPrefix = "198.18.0.";

struct ProcessResult {
  int status = -1;
  std::string output;  // stdout + stderr
};

// The plumbing commands run through core/process.h (argv, no shell). A program that cannot be
// started reads as exit status 127 with the reason as its output, as a shell would report it.
Expected<ProcessResult> capture(const std::vector<std::string>& argv) {
  Expected<ProgramResult> r = run_program(argv);
  if (!r) {
    if (r.error().code != Errc::NotFound) return Unexpected(std::move(r).error());
    return ProcessResult{127, r.error().message};
  }
  return ProcessResult{r->exit_status, r->out + r->err};
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& a : v) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Runs one plumbing command; its output becomes the error message on failure.
Expected<void> sh(const std::vector<std::string>& argv) {
  TT_TRY(ProcessResult r, capture(argv));
  if (r.status != 0) {
    while (!r.output.empty() && r.output.back() == '\n') r.output.pop_back();
    return fail(Errc::Transport, "`" + join(argv) + "` failed: " + r.output);
  }
  return {};
}

// tbf on both ends is what makes a veth a full-duplex link of `bps` per direction.
// burst = max(64 KiB, 1 ms of rate), limit = max(1 MiB, 10 ms of rate) (testbed.md pitfall 5).
Expected<void> shape(const std::string& ns, const std::string& dev, double bps) {
  if (bps <= 0) return {};
  const auto bytes_per_s = static_cast<long long>(bps / 8);
  const long long burst = std::max(65536LL, bytes_per_s / 1000);
  const long long limit = std::max(1048576LL, bytes_per_s / 100);
  return sh({"ip", "netns", "exec", ns, "tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate",
             std::to_string(static_cast<long long>(bps)) + "bit", "burst", std::to_string(burst),
             "limit", std::to_string(limit)});
}

Expected<void> add_ns(const std::string& ns) {
  TT_TRY_VOID(sh({"ip", "netns", "add", ns}));
  return sh({"ip", "-n", ns, "link", "set", "lo", "up"});
}

Expected<void> make_switch(const EmulatedClusterSpec& s) {
  const std::string sw = s.switch_ns();
  TT_TRY_VOID(add_ns(sw));
  auto bridge = [&](const std::string& br) -> Expected<void> {
    TT_TRY_VOID(sh({"ip", "-n", sw, "link", "add", br, "type", "bridge", "stp_state", "0",
                    "forward_delay", "0"}));
    return sh({"ip", "-n", sw, "link", "set", br, "up"});
  };
  for (int r = 0; r < s.racks; ++r) TT_TRY_VOID(bridge("br" + std::to_string(r)));
  if (s.racks < 2) return {};
  // Two tiers: each rack bridge joins the spine bridge through a shaped veth pair.
  TT_TRY_VOID(bridge("spine"));
  for (int r = 0; r < s.racks; ++r) {
    const std::string a = "up" + std::to_string(r) + "a", b = "up" + std::to_string(r) + "b";
    TT_TRY_VOID(sh({"ip", "-n", sw, "link", "add", a, "type", "veth", "peer", "name", b}));
    TT_TRY_VOID(sh({"ip", "-n", sw, "link", "set", a, "master", "br" + std::to_string(r), "up"}));
    TT_TRY_VOID(sh({"ip", "-n", sw, "link", "set", b, "master", "spine", "up"}));
    TT_TRY_VOID(shape(sw, a, s.uplink_bits_per_sec));
    TT_TRY_VOID(shape(sw, b, s.uplink_bits_per_sec));
  }
  return {};
}

// A namespace `ns` with eth0 = `addr`, cabled to bridge `br` of the switch through port `port`.
Expected<void> attach(const EmulatedClusterSpec& s, const std::string& ns, const std::string& port,
                      const std::string& br, const std::string& addr) {
  const std::string sw = s.switch_ns();
  TT_TRY_VOID(add_ns(ns));
  // Created directly inside the two namespaces: nothing ever exists in the root namespace.
  TT_TRY_VOID(sh({"ip", "link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", port,
                  "netns", sw}));
  TT_TRY_VOID(sh({"ip", "-n", ns, "addr", "add", addr + "/24", "dev", "eth0"}));
  TT_TRY_VOID(sh({"ip", "-n", ns, "link", "set", "eth0", "up"}));
  return sh({"ip", "-n", sw, "link", "set", port, "master", br, "up"});
}

Expected<void> build(const EmulatedClusterSpec& s) {
  TT_TRY_VOID(make_switch(s));
  TT_TRY_VOID(attach(s, s.launcher_ns(), "lp", "br0", std::string(kAddrPrefix) + "254"));
  for (int i = 0; i < s.nodes; ++i) {
    const std::string ns = s.host_ns(i), port = "h" + std::to_string(i) + "p";
    const std::string br = "br" + std::to_string(i / s.hosts_per_rack());
    TT_TRY_VOID(attach(s, ns, port, br, kAddrPrefix + std::to_string(i + 1)));
    TT_TRY_VOID(shape(ns, "eth0", s.nic_bits_per_sec));           // host TX
    TT_TRY_VOID(shape(s.switch_ns(), port, s.nic_bits_per_sec));  // host RX
    // Namespaces inherit the host's default congestion control (BBR here), whose probing
    // inflates multi-second runs; the per-netns sysctl is refused, a per-route one works.
    if (!s.congestion_control.empty()) {
      TT_TRY_VOID(sh({"ip", "-n", ns, "route", "replace", kSubnet, "dev", "eth0", "congctl",
                      s.congestion_control}));
    }
  }
  return {};
}

std::vector<pid_t> pids_in(const std::string& ns) {
  std::vector<pid_t> pids;
  auto r = capture({"ip", "netns", "pids", ns});
  if (!r || r->status != 0) return pids;
  std::istringstream in(r->output);
  long p;
  while (in >> p) pids.push_back(static_cast<pid_t>(p));
  return pids;
}

// Exactly the names this file creates: <p>sw, <p>l, <p>probe and <p>h<digits>.
bool is_ours(const std::string& prefix, const std::string& name) {
  if (name.rfind(prefix, 0) != 0) return false;
  const std::string rest = name.substr(prefix.size());
  if (rest == "sw" || rest == "l" || rest == "probe") return true;
  return rest.size() > 1 && rest[0] == 'h' &&
         std::all_of(rest.begin() + 1, rest.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

BytesPerSec effective_payload_rate(double bits_per_sec) {
  return BytesPerSec(bits_per_sec / 8.0 * kTcpPayloadShare / kAckOverhead);
}

Expected<void> check_spec(const EmulatedClusterSpec& s) {
  if (s.nodes < 1 || s.nodes > 64) return fail(Errc::InvalidArgument, "--nodes must be 1..64");
  if (s.ranks_per_node < 1) return fail(Errc::InvalidArgument, "--ranks-per-node must be >= 1");
  if (s.racks < 1 || s.racks > s.nodes)
    return fail(Errc::InvalidArgument, "--racks must be 1..nodes");
  if (s.nodes % s.racks != 0) {
    return fail(Errc::InvalidArgument, "--nodes must be a multiple of --racks (equal racks)");
  }
  if (s.nic_bits_per_sec <= 0) return fail(Errc::InvalidArgument, "--nic must be a positive rate");
  if (s.prefix.empty() || s.prefix.size() > 4 ||
      !std::all_of(s.prefix.begin(), s.prefix.end(),
                   [](char c) { return std::isalnum(static_cast<unsigned char>(c)); })) {
    return fail(Errc::InvalidArgument, "--prefix must be 1-4 letters or digits");
  }
  return {};
}

Expected<void> check_privileges(const std::string& prefix) {
  if (::geteuid() != 0) {
    return fail(Errc::Unsupported, "emulated clusters need root (network namespaces and tc)");
  }
  const std::string probe = prefix + "probe";
  TT_TRY(ProcessResult r, capture({"ip", "netns", "add", probe}));
  if (r.status != 0) {
    return fail(Errc::Unsupported, "network namespaces are not available here: " + r.output);
  }
  (void)capture({"ip", "netns", "del", probe});
  return {};
}

std::vector<std::string> emulated_namespaces(const std::string& prefix) {
  std::vector<std::string> names;
  auto r = capture({"ip", "netns", "list"});
  if (!r || r->status != 0) return names;
  std::istringstream in(r->output);
  std::string line;
  while (std::getline(in, line)) {
    const std::string name = line.substr(0, line.find(' '));
    if (is_ours(prefix, name)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Expected<std::vector<std::string>> emulated_down(const std::string& prefix) {
  const std::vector<std::string> names = emulated_namespaces(prefix);
  // Processes left inside (a crashed run) keep a namespace's devices alive: end them first.
  for (int sig : {SIGTERM, SIGKILL}) {
    bool any = false;
    for (const auto& ns : names) {
      for (pid_t p : pids_in(ns)) {
        any = true;
        ::kill(p, sig);
      }
    }
    if (any && sig == SIGTERM) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  for (const auto& ns : names) TT_TRY_VOID(sh({"ip", "netns", "del", ns}));
  return names;
}

Expected<void> emulated_up(const EmulatedClusterSpec& s) {
  TT_TRY_VOID(check_spec(s));
  if (!emulated_namespaces(s.prefix).empty()) {
    return fail(Errc::InvalidArgument, "an emulated cluster with prefix '" + s.prefix +
                                           "' exists already: run `topotune emulate down` first");
  }
  Expected<void> made = build(s);
  if (!made) (void)emulated_down(s.prefix);
  return made;
}

Expected<int> run_process(const std::vector<std::string>& argv, bool quiet) {
  const pid_t pid = ::fork();
  if (pid < 0) return fail(Errc::Internal, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    if (quiet) {
      const int devnull = ::open("/dev/null", O_WRONLY);
      ::dup2(devnull, STDOUT_FILENO);
      ::dup2(devnull, STDERR_FILENO);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "topotune: error: cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

}  // namespace topotune::cli
