// validate --plot's gnuplot script: untrusted names stay inside single-quoted
// literals, the script names no file, and gnuplot (when installed) runs it without a shell.

#include "cli/busbw_plot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace topotune::cli {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

bool have_gnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

std::vector<BusbwSeries> two_series(const std::string& second_name) {
  return {{"ring", {{1024, 1.5, 1.25}, {1 << 20, 20, 22.5}}},
          {second_name, {{1024, 0.5, 0.75}, {1 << 20, 10, 9}}}};
}

TEST(GnuplotQuote, DoublesQuotesAndBlanksControlCharacters) {
  EXPECT_EQ(gnuplot_quote("p4d.24xlarge x 2"), "'p4d.24xlarge x 2'");
  EXPECT_EQ(gnuplot_quote("it's"), "'it''s'");
  EXPECT_EQ(gnuplot_quote("a\nb\rc\td"), "'a b c d'");
  // Backquotes, '@' macros and backslashes are inert inside single quotes: kept as text.
  EXPECT_EQ(gnuplot_quote("`id` @m \\"), "'`id` @m \\'");
  EXPECT_EQ(gnuplot_quote(""), "''");
}

TEST(BusbwPlotScript, AHostileTitleStaysOneString) {
  // The inline instance name: it closed the title, ran `system`, reopened a string.
  const std::string name = "evil'\nsystem 'touch PWNED'\nset title 'x";
  const std::string script = busbw_plot_script(two_series("tree"), name, PlotFormat::Svg);
  const std::vector<std::string> lines = lines_of(script);
  int titles = 0;
  for (const std::string& l : lines) {
    EXPECT_NE(l.rfind("system", 0), 0u) << l;
    if (l.rfind("set title", 0) == 0) {
      ++titles;
      EXPECT_EQ(l, "set title 'evil'' system ''touch PWNED'' set title ''x'");
    }
  }
  EXPECT_EQ(titles, 1);
  // No file name anywhere: the image goes to stdout and the data are inline.
  EXPECT_EQ(script.find("set output"), std::string::npos);
  EXPECT_NE(script.find("set terminal svg size 900,540 noenhanced\n"), std::string::npos);
  EXPECT_NE(script.find("$d1 << EOD\n1024 0.5 0.75\n1048576 10 9\nEOD\n"), std::string::npos);
  EXPECT_NE(script.find("title 'tree measured'"), std::string::npos);
}

TEST(BusbwPlotScript, HostileSeriesNamesAreQuoted) {
  const std::string script =
      busbw_plot_script(two_series("x' ; system 'touch PWNED"), "t", PlotFormat::Png);
  EXPECT_NE(script.find("title 'x'' ; system ''touch PWNED measured'"), std::string::npos)
      << script;
  EXPECT_NE(script.find("set terminal pngcairo"), std::string::npos);
}

TEST(BusbwPlotScript, EmptySeriesAreLeftOut) {
  std::vector<BusbwSeries> s = two_series("tree");
  s[0].points.clear();
  const std::string script = busbw_plot_script(s, "t", PlotFormat::Svg);
  EXPECT_EQ(script.find("$d0"), std::string::npos);
  EXPECT_NE(script.find("plot $d1 using 1:2"), std::string::npos);
}

TEST(RunGnuplot, HostileNamesRunNothing) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/setup.sh installs it)";
  std::string tmpl = (fs::temp_directory_path() / "topotune-plot-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  const fs::path dir = tmpl;
  const std::string pwned = (dir / "PWNED").string();
  const std::string title =
      "evil'\nsystem 'touch " + pwned + "'\nset title 'x `touch " + pwned + "` @x";
  const auto svg =
      run_gnuplot(busbw_plot_script(two_series("y'\n!touch " + pwned), title, PlotFormat::Svg));
  ASSERT_TRUE(svg) << svg.error().message;
  EXPECT_NE(svg->find("<svg"), std::string::npos);
  EXPECT_NE(svg->find("system 'touch"), std::string::npos);  // drawn as text, not run
  EXPECT_FALSE(fs::exists(pwned));
  fs::remove_all(dir);
}

TEST(RunGnuplot, AFailingScriptIsAnErrorWithGnuplotsMessage) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (scripts/setup.sh installs it)";
  const auto r = run_gnuplot("set terminal svg\nplot $nothing using 1:2\n");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::Io);
  EXPECT_NE(r.error().message.find("gnuplot failed"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace topotune::cli
