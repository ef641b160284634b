#include "core/quantity_parse.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/string_printf.h"

namespace topotune {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits "12.5Gbps" into the number 12.5 and the suffix "gbps" (lower case, spaces dropped).
bool split_number(std::string_view text, double& number, std::string& suffix) {
  text = trim(text);
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                             text[i] == 'e' || text[i] == 'E' ||
                             ((text[i] == '+' || text[i] == '-') && i > 0 &&
                              (text[i - 1] == 'e' || text[i - 1] == 'E')))) {
    // Stop at an 'e' that starts a suffix rather than an exponent ("1e" is not a number).
    if ((text[i] == 'e' || text[i] == 'E') &&
        (i + 1 >= text.size() || !(std::isdigit(static_cast<unsigned char>(text[i + 1])) ||
                                   text[i + 1] == '+' || text[i + 1] == '-'))) {
      break;
    }
    ++i;
  }
  if (i == 0) return false;
  const std::string num(text.substr(0, i));
  char* end = nullptr;
  number = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size() || !std::isfinite(number)) return false;
  std::string rest;
  for (char c : text.substr(i)) {
    if (!std::isspace(static_cast<unsigned char>(c))) rest += c;
  }
  suffix = lower(rest);
  return true;
}

}  // namespace

Expected<Bytes> parse_size(std::string_view text) {
  const std::string_view t = trim(text);
  if (t.empty()) return fail(Errc::InvalidArgument, "empty size");
  if (t.front() == '-')
    return fail(Errc::InvalidArgument, "negative size '" + std::string(t) + "'");
  std::uint64_t base = 0;
  const char* first = t.data();
  const char* last = t.data() + t.size();
  auto [ptr, ec] = std::from_chars(first, last, base);
  if (ec == std::errc::result_out_of_range) {
    return fail(Errc::InvalidArgument, "size '" + std::string(t) + "' is too large");
  }
  if (ec != std::errc() || ptr == first) {
    return fail(Errc::InvalidArgument,
                "bad size '" + std::string(t) + "' (expected e.g. 8, 64K, 256M, 4G)");
  }
  std::string suffix = lower(std::string_view(ptr, static_cast<std::size_t>(last - ptr)));
  if (suffix.size() > 1 && (suffix.ends_with("ib") || suffix.ends_with("b"))) {
    suffix = suffix.substr(0, suffix.size() - (suffix.ends_with("ib") ? 2 : 1));
  }
  int shift = 0;
  if (suffix.empty() || suffix == "b")
    shift = 0;
  else if (suffix == "k")
    shift = 10;
  else if (suffix == "m")
    shift = 20;
  else if (suffix == "g")
    shift = 30;
  else if (suffix == "t")
    shift = 40;
  else {
    return fail(Errc::InvalidArgument,
                "bad size suffix in '" + std::string(t) + "' (use K, M, G or T: powers of 1024)");
  }
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (base > (kMax >> shift)) {
    return fail(Errc::InvalidArgument, "size '" + std::string(t) + "' is too large");
  }
  return Bytes(static_cast<std::int64_t>(base << shift));
}

Expected<std::vector<Bytes>> parse_size_list(std::string_view text) {
  const std::string_view t = trim(text);
  std::vector<Bytes> out;
  if (const auto colon = t.find(':'); colon != std::string_view::npos) {
    TT_TRY(Bytes lo, parse_size(t.substr(0, colon)));
    TT_TRY(Bytes hi, parse_size(t.substr(colon + 1)));
    if (lo.value <= 0) return fail(Errc::InvalidArgument, "size range must start above 0");
    if (hi < lo)
      return fail(Errc::InvalidArgument,
                  "size range '" + std::string(t) + "' ends before it starts");
    for (Bytes b = lo; b <= hi; b = b * 2) {
      out.push_back(b);
      if (b.value > std::numeric_limits<std::int64_t>::max() / 2) break;
    }
    return out;
  }
  std::size_t start = 0;
  while (start <= t.size()) {
    const std::size_t comma = t.find(',', start);
    const std::string_view item =
        t.substr(start, comma == std::string_view::npos ? t.npos : comma - start);
    TT_TRY(Bytes b, parse_size(item));
    out.push_back(b);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> split_comma_list(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t p = 0, q = 0; p <= text.size(); p = q + 1) {
    q = std::min(text.find(',', p), text.size());
    if (q > p) out.emplace_back(text.substr(p, q - p));
  }
  return out;
}

Expected<BytesPerSec> parse_rate(std::string_view text) {
  double number = 0;
  std::string suffix;
  if (!split_number(text, number, suffix)) {
    return fail(Errc::InvalidArgument,
                "bad rate '" + std::string(text) + "' (expected e.g. 100Gbps, 200mbit, 25GB/s)");
  }
  if (number < 0) return fail(Errc::InvalidArgument, "negative rate '" + std::string(text) + "'");
  struct Unit {
    const char* name;
    double bytes_per_sec;
  };
  static constexpr Unit kUnits[] = {
      {"bps", 1.0 / 8},   {"bit", 1.0 / 8},   {"kbps", 1e3 / 8}, {"kbit", 1e3 / 8},
      {"mbps", 1e6 / 8},  {"mbit", 1e6 / 8},  {"gbps", 1e9 / 8}, {"gbit", 1e9 / 8},
      {"tbps", 1e12 / 8}, {"tbit", 1e12 / 8}, {"b/s", 1},        {"kb/s", 1e3},
      {"mb/s", 1e6},      {"gb/s", 1e9},      {"tb/s", 1e12},
  };
  // "GBps" (capital B) means bytes; lower-cased it collides with Gbps, so look at the original.
  const std::string_view raw = trim(text);
  if (raw.ends_with("GBps") || raw.ends_with("MBps") || raw.ends_with("TBps")) {
    const double scale = raw.ends_with("GBps") ? 1e9 : raw.ends_with("MBps") ? 1e6 : 1e12;
    return BytesPerSec(number * scale);
  }
  for (const Unit& u : kUnits) {
    if (suffix == u.name) return BytesPerSec(number * u.bytes_per_sec);
  }
  return fail(Errc::InvalidArgument,
              "bad rate unit in '" + std::string(text) + "' (use bps/mbit/Gbps or GB/s)");
}

Expected<Seconds> parse_duration(std::string_view text) {
  double number = 0;
  std::string suffix;
  if (!split_number(text, number, suffix)) {
    return fail(Errc::InvalidArgument,
                "bad duration '" + std::string(text) + "' (expected e.g. 10us, 2ms, 1s)");
  }
  if (number < 0)
    return fail(Errc::InvalidArgument, "negative duration '" + std::string(text) + "'");
  if (suffix.empty() || suffix == "s") return Seconds(number);
  if (suffix == "ms") return Seconds(number * 1e-3);
  if (suffix == "us") return Seconds(number * 1e-6);
  if (suffix == "ns") return Seconds(number * 1e-9);
  return fail(Errc::InvalidArgument,
              "bad duration unit in '" + std::string(text) + "' (use s, ms, us, ns)");
}

std::string format_size(Bytes b) {
  const std::int64_t v = b.value;
  if (v != 0 && v % (1LL << 30) == 0) return std::to_string(v >> 30) + "G";
  if (v != 0 && v % (1LL << 20) == 0) return std::to_string(v >> 20) + "M";
  if (v != 0 && v % (1LL << 10) == 0) return std::to_string(v >> 10) + "K";
  return std::to_string(v);
}

std::string format_duration(Seconds t) {
  const double s = t.value;
  if (s < 1e-3) return string_printf("%.2f us", s * 1e6);
  if (s < 1.0) return string_printf("%.3f ms", s * 1e3);
  return string_printf("%.3f s", s);
}

std::string format_rate(BytesPerSec r) { return string_printf("%.2f GB/s", r.value / 1e9); }

}  // namespace topotune
