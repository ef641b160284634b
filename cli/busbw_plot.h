#pragma once
// validate --plot: measured and predicted busbw per size, drawn by gnuplot.
//
// No untrusted text reaches gnuplot's command line: gnuplot runs through
// run_program (argv, no shell) and reads the script on stdin; the data are inline datablocks
// of numbers only; the image comes back on gnuplot's stdout (no `set output` path in the
// script) and is written by write_file_atomically. The only strings in the script, the title
// (an instance name, possibly from a cluster file) and the series names (algorithm names from
// a log), are single-quoted literals made by gnuplot_quote: gnuplot does no backquote command
// substitution, macro expansion or backslash processing inside single quotes, a quote is
// doubled, and control characters (a newline would end the command) become spaces.

#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace topotune::cli {

/// One point of a series: a size and its busbw, measured and predicted.
struct BusbwPoint {
  long long bytes = 0;
  double measured_GBps = 0, predicted_GBps = 0;
};

/// One algorithm's points; `name` is shown in the key ("" for a single series).
struct BusbwSeries {
  std::string name;
  std::vector<BusbwPoint> points;
};

/// Image formats gnuplot writes for --plot.
enum class PlotFormat { Svg, Png };

/// `text` as a gnuplot single-quoted string literal that is inert whatever it contains.
std::string gnuplot_quote(std::string_view text);

/// The complete gnuplot script (terminal, labels, datablocks, plot command) for the series.
std::string busbw_plot_script(const std::vector<BusbwSeries>& series, const std::string& title,
                              PlotFormat format);

/// Runs gnuplot on `script` and returns the image it writes to stdout. Errors say whether
/// gnuplot is missing (Errc::NotFound) or failed (Errc::Io, with its first error line).
Expected<std::string> run_gnuplot(const std::string& script);

}  // namespace topotune::cli
