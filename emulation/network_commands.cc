#include "emulation/network_commands.h"

#include <algorithm>

#include "emulation/link_model.h"

namespace topotune::emu {
namespace {

constexpr const char* kAddrPrefix = "198.18.0.";

/// Appends commands to a list; the helpers mirror the steps of docs/reference/testbed.md.
class Recipe {
 public:
  explicit Recipe(const EmulationSpec& s) : s_(s) {}

  void add(Argv argv) { commands_.push_back(std::move(argv)); }

  void add_ns(const std::string& ns) {
    add({"ip", "netns", "add", ns});
    add({"ip", "-n", ns, "link", "set", "lo", "up"});
  }

  void bridge(const std::string& br) {
    const std::string sw = s_.switch_ns();
    add({"ip", "-n", sw, "link", "add", br, "type", "bridge", "stp_state", "0", "forward_delay",
         "0"});
    add({"ip", "-n", sw, "link", "set", br, "up"});
  }

  void make_switch() {
    const std::string sw = s_.switch_ns();
    add_ns(sw);
    for (int r = 0; r < s_.racks; ++r) bridge("br" + std::to_string(r));
    if (s_.racks < 2) return;
    // Two tiers: each rack bridge joins the spine bridge through a shaped veth pair.
    bridge("spine");
    for (int r = 0; r < s_.racks; ++r) {
      const std::string a = "up" + std::to_string(r) + "a", b = "up" + std::to_string(r) + "b";
      add({"ip", "-n", sw, "link", "add", a, "type", "veth", "peer", "name", b});
      add({"ip", "-n", sw, "link", "set", a, "master", "br" + std::to_string(r), "up"});
      add({"ip", "-n", sw, "link", "set", b, "master", "spine", "up"});
      if (s_.uplink_rate) {
        add(shape_command(sw, a, *s_.uplink_rate));
        add(shape_command(sw, b, *s_.uplink_rate));
      }
    }
  }

  /// A namespace `ns` with eth0 = `addr`, cabled to bridge `br` of the switch through `port`.
  void attach(const std::string& ns, const std::string& port, const std::string& br,
              const std::string& addr) {
    const std::string sw = s_.switch_ns();
    add_ns(ns);
    add({"ip", "link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", port, "netns",
         sw});
    add({"ip", "-n", ns, "addr", "add", addr + "/24", "dev", "eth0"});
    add({"ip", "-n", ns, "link", "set", "eth0", "up"});
    add({"ip", "-n", sw, "link", "set", port, "master", br, "up"});
  }

  void hosts() {
    for (int i = 0; i < s_.nodes; ++i) {
      const std::string ns = s_.host_ns(i), port = "h" + std::to_string(i) + "p";
      const std::string br = "br" + std::to_string(i / s_.hosts_per_rack());
      attach(ns, port, br, kAddrPrefix + std::to_string(i + 1));
      add(shape_command(ns, "eth0", s_.nic_rate));            // host TX
      add(shape_command(s_.switch_ns(), port, s_.nic_rate));  // host RX
      // Namespaces inherit the host's default congestion control (BBR here), whose probing
      // inflates multi-second runs; the per-netns sysctl is refused, a per-route one works.
      if (!s_.congestion_control.empty()) {
        add({"ip", "-n", ns, "route", "replace", kSubnet, "dev", "eth0", "congctl",
             s_.congestion_control});
      }
    }
  }

  std::vector<Argv> take() { return std::move(commands_); }

 private:
  const EmulationSpec& s_;
  std::vector<Argv> commands_;
};

}  // namespace

Argv shape_command(const std::string& ns, const std::string& dev, BytesPerSec rate) {
  // tbf on both ends is what makes a veth a full-duplex link of `rate` per direction.
  const TbfShape t = tbf_shape(rate);
  return {"ip",
          "netns",
          "exec",
          ns,
          "tc",
          "qdisc",
          "replace",
          "dev",
          dev,
          "root",
          "tbf",
          "rate",
          std::to_string(t.rate_bits) + "bit",
          "burst",
          std::to_string(t.burst_bytes),
          "limit",
          std::to_string(t.limit_bytes)};
}

std::vector<Argv> up_commands(const EmulationSpec& s) {
  Recipe r(s);
  r.make_switch();
  r.attach(s.launcher_ns(), "lp", "br0", std::string(kAddrPrefix) + "254");
  r.hosts();
  return r.take();
}

bool is_emulation_namespace(const std::string& prefix, const std::string& name) {
  if (name.rfind(prefix, 0) != 0) return false;
  const std::string rest = name.substr(prefix.size());
  if (rest == "sw" || rest == "l" || rest == "probe") return true;
  return rest.size() > 1 && rest[0] == 'h' &&
         std::all_of(rest.begin() + 1, rest.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace topotune::emu
