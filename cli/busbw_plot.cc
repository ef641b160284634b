#include "cli/busbw_plot.h"

#include <cstdio>
#include <sstream>

#include "core/process.h"
#include "core/string_printf.h"

namespace topotune::cli {
namespace {

/// gnuplot ends its error report with "line N: what went wrong".
std::string last_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const std::size_t nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

}  // namespace

std::string gnuplot_quote(std::string_view text) {
  std::string q = "'";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\'') {
      q += "''";  // the only escape inside single quotes
    } else if (u < 0x20 || u == 0x7f) {
      q += ' ';  // a newline or carriage return would end the command
    } else {
      q += c;
    }
  }
  return q + "'";
}

std::string busbw_plot_script(const std::vector<BusbwSeries>& series, const std::string& title,
                              PlotFormat format) {
  std::ostringstream g;
  // noenhanced: names are shown as written ('_' and '^' are not sub/superscripts).
  g << "set terminal " << (format == PlotFormat::Svg ? "svg size 900,540" : "pngcairo size 900,540")
    << " noenhanced\nset logscale x 2\nset key left top\n"
    << "set xlabel 'size (bytes)'\nset ylabel 'busbw (GB/s)'\nset title " << gnuplot_quote(title)
    << "\nset format x '%.0s%cB'\n";
  std::vector<std::size_t> drawn;
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (series[i].points.empty()) continue;
    drawn.push_back(i);
    g << "$d" << i << " << EOD\n";
    for (const BusbwPoint& p : series[i].points) {
      std::string line;
      line = string_printf("%lld %.9g %.9g\n", p.bytes, p.measured_GBps, p.predicted_GBps);
      g << line;
    }
    g << "EOD\n";
  }
  g << "plot ";
  for (std::size_t k = 0; k < drawn.size(); ++k) {
    const std::size_t i = drawn[k];
    const std::string name = series[i].name.empty() ? "" : series[i].name + " ";
    g << (k ? ", " : "") << "$d" << i << " using 1:2 with linespoints title "
      << gnuplot_quote(name + "measured") << ", $d" << i
      << " using 1:3 with linespoints dashtype 2 title " << gnuplot_quote(name + "predicted");
  }
  g << "\n";
  return g.str();
}

Expected<std::string> run_gnuplot(const std::string& script) {
  ProgramInput in;
  in.stdin_data = script;
  Expected<ProgramResult> r = run_program({"gnuplot"}, in);
  if (!r) {
    if (r.error().code != Errc::NotFound) return Unexpected(std::move(r).error());
    return fail(Errc::NotFound, r.error().message +
                                    " (--plot needs gnuplot: apt-get install "
                                    "gnuplot-nox)");
  }
  if (!r->ok() || r->out.empty()) {
    const std::string why = last_line(r->err);
    return fail(Errc::Io, "gnuplot failed (exit status " + std::to_string(r->exit_status) +
                              (why.empty() ? ", no image)" : "): " + why));
  }
  return std::move(r->out);
}

}  // namespace topotune::cli
