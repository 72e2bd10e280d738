// `perflens diff --html` on the diff fixtures (fixtures/diff/README.md: two builds of one
// program, functions that grow, shrink, appear and go away):
//  * HtmlDiff: the page carries both files (the baseline as the data's "base"), usage
//    errors.
//  * HtmlDiffBrowser (ctest label `browser`): testdata/html_diff_check.py opens it in
//    headless Chromium and checks the differential flame graph against `perflens diff
//    -c delta`'s text: each function's change of share is diff's Delta, red for more,
//    blue for less, nothing for a function only the baseline has; screenshot in the
//    build directory. Without Chromium, chromedriver or selenium the test fails;
//    PERFLENS_SKIP_BROWSER=1 makes it a skip.

#include <cstdlib>
#include <regex>
#include <string>

#include <fmt/format.h>

#include "base/result.h"
#include "export/html.h"
#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

std::string DiffDir() { return ScenarioSourceDir() + "/fixtures/diff"; }

class HtmlDiff : public ScratchDirTest<::testing::Test> {
 protected:
  HtmlDiff() : ScratchDirTest("html-diff") {}
  CommandResult Perflens(const std::string& args) {
    return RunShell("cd " + ShellQuote(DiffDir()) + " && env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") +
                        " " + ShellQuote(PerflensBinary()) + " " + args + " --buildid-dir cache",
                    dir_);
  }
};

long HeaderSamples(const std::string& text) {
  static const std::regex kSamples(R"(# Samples: (\d+)\s)");
  std::smatch m;
  return std::regex_search(text, m, kSamples) ? std::stol(m[1]) : -1;
}

TEST_F(HtmlDiff, PageHoldsBothFiles) {
  const std::string html = dir_ + "/diff.html";
  CommandResult r = Perflens("diff old-g.data new-g.data --html " + ShellQuote(html));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("wrote " + html), std::string::npos) << r.err;
  const std::string page = ReadFileOrEmpty(html);
  const Result<std::string> json = ReadHtmlReportData(page);  // gzip + base64 (export/html.h)
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_NE(json->find("\"base\":{\"source\":\"old-g.data\""), std::string::npos);
  EXPECT_NE(json->find("\"source\":\"new-g.data\""), std::string::npos);
  EXPECT_EQ(page.find("http://"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
}

// An output that is an input is refused before anything is written: the recording
// stays as it was (export, report --html, diff --html).
TEST_F(HtmlDiff, OutputThatIsAnInputIsRefused) {
  const std::string copy = dir_ + "/copy.data";
  ASSERT_EQ(RunShell("cp " + ShellQuote(DiffDir() + "/new.data") + " " + ShellQuote(copy), dir_).exit_code, 0);
  const std::string before = ReadFileOrEmpty(copy);
  ASSERT_FALSE(before.empty());
  for (const std::string& args : {"export --format json -i " + ShellQuote(copy) + " -o " + ShellQuote(copy),
                                  "export --format html -i " + ShellQuote(copy) + " -o " + ShellQuote(copy),
                                  "report -i " + ShellQuote(copy) + " --html " + ShellQuote(copy),
                                  "diff old.data " + ShellQuote(copy) + " --html " + ShellQuote(copy)}) {
    CommandResult r = Perflens(args);
    EXPECT_EQ(r.exit_code, 129) << args;
    EXPECT_NE(r.err.find("refusing to write " + copy + ": it is the input file"), std::string::npos) << args << r.err;
    EXPECT_EQ(ReadFileOrEmpty(copy), before) << args;
  }
}

TEST_F(HtmlDiff, Errors) {
  CommandResult r = Perflens("diff old.data new.data new.data --html " + ShellQuote(dir_ + "/x.html"));
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("diff --html compares two files, not 3"), std::string::npos) << r.err;
  r = Perflens("diff old.data new.data --html " + ShellQuote(dir_ + "/no/such/dir/x.html"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot create"), std::string::npos) << r.err;
}

class HtmlDiffBrowser : public HtmlDiff {
 protected:
  // Checks `diff BASE NEW --html` in the browser against `diff BASE NEW -c delta`;
  // `rows`: the text diff's rows.
  void Check(const std::string& base_file, const std::string& new_file, size_t rows_expected);
};

TEST_F(HtmlDiffBrowser, AgreesWithDiffText) { Check("old.data", "new.data", 5); }  // beta fresh padding alpha gone

// A file against itself: every change +0.00%, every frame grey, the scale at its 5%.
TEST_F(HtmlDiffBrowser, SameFileIsGrey) { Check("new.data", "new.data", 4); }

void HtmlDiffBrowser::Check(const std::string& base_file, const std::string& new_file, size_t rows_expected) {
  PERFLENS_REQUIRE_BROWSER();
  const std::string html = dir_ + "/diff.html";
  CommandResult page = Perflens("diff " + base_file + " " + new_file + " --html " + ShellQuote(html));
  ASSERT_EQ(page.exit_code, 0) << page.err;
  CommandResult text = Perflens("diff " + base_file + " " + new_file + " -c delta");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  CommandResult base = Perflens("report -i " + base_file + " --stdio");
  CommandResult next = Perflens("report -i " + new_file + " --stdio");
  ASSERT_EQ(base.exit_code, 0) << base.err;
  ASSERT_EQ(next.exit_code, 0) << next.err;
  // "    30.23%  +41.94%  diff_prog      [.] beta": Baseline, Delta (either may be blank).
  static const std::regex kRow(R"(^\s*(\d+\.\d+%)?\s+([+-]\d+\.\d+%)?\s+\S+\s+\[\.\]\s+(\S+)\s*$)");
  std::string delta, gone;
  size_t rows = 0;
  for (const std::string& line : SplitLines(text.out)) {
    std::smatch m;
    if (line.empty() || line[0] == '#' || !std::regex_match(line, m, kRow)) continue;
    ++rows;
    if (m[2].matched)
      delta += fmt::format("{}\"{}\": \"{}\"", delta.empty() ? "" : ", ", m[3].str(), m[2].str());
    else
      gone += fmt::format("{}\"{}\"", gone.empty() ? "" : ", ", m[3].str());
  }
  ASSERT_EQ(rows, rows_expected) << text.out;
  const std::string expect = fmt::format(R"({{"total": {}, "base_total": {}, "delta": {{{}}}, "gone": [{}]}})",
                                         HeaderSamples(next.out), HeaderSamples(base.out), delta, gone);
  WriteFile(dir_ + "/expect.json", expect);
  const std::string screenshot = std::string(PERFLENS_BINARY_DIR) + "/html_diff_" + base_file + "_" + new_file + ".png";
  CommandResult check = RunBrowserCheck("html_diff_check.py", html, dir_ + "/expect.json", screenshot, dir_);
  PERFLENS_EXPECT_BROWSER_CHECKS_PASS(check, expect);
}

}  // namespace
}  // namespace perflens::scenario
