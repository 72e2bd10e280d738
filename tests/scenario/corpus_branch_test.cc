// Branch stacks of the shared corpus (perf record -b, LBR, AMD speculation bits): perf
// report's branch mode and perf script's brstack/brstacksym fields agree with perf 6.1's
// outputs, captured by corpus_branch/capture.sh with an empty --symfs and HOME (the
// first lines of each: the outputs are large; --branch-history outputs whole). Skipped
// when the corpus is absent; PERFLENS_CORPUS_DIR in the environment overrides where it is.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

struct CorpusCase {
  std::string path;  // under the corpus
  std::string name;
  // Whether the report is compared: not where it differs for reasons outside branch
  // stacks — branch_stack_spec (perf truncates "perf-exec" to the width of the
  // thread's final comm, "lsattr") and test.lbr (no BRANCH_STACK feature, so no branch
  // mode; perf orders its unresolved rows of equal overhead by address).
  bool report = true;
  // --branch-history outputs stored (corpus_branch/capture.sh): 0 none; 1 the whole
  // report, compared exactly; 2 a Children report (compared with rows of equal
  // percentage in any order: perf's tie order there is a known gap, README "Ties") and
  // a --no-children caller-order one, compared exactly.
  int branch_history = 0;
};

std::string CorpusDir() {
  const char* env = std::getenv("PERFLENS_CORPUS_DIR");
  return env && *env ? env : PERFLENS_CORPUS_DIR;
}

std::string FirstLines(const std::string& text, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < n && at < text.size(); ++i) {
    size_t nl = text.find('\n', at);
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  return text.substr(0, at);
}

class CorpusBranch : public ::testing::TestWithParam<CorpusCase> {
 protected:
  void SetUp() override {
    data_ = CorpusDir() + "/" + GetParam().path;
    struct stat st;
    if (stat(data_.c_str(), &st) != 0) GTEST_SKIP() << data_ << " is absent (the shared corpus)";
    char tmpl[] = "/tmp/perflens-corpus-branch-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    for (const char* sub : {"/home", "/symfs"}) ASSERT_EQ(mkdir((dir_ + sub).c_str(), 0700), 0);
  }
  void TearDown() override {
    if (!dir_.empty()) RunShell("rm -rf " + ShellQuote(dir_), "/tmp");
  }
  // perflens `args` on the recording, with nothing but the recording's build-ids to go by.
  CommandResult RunPerflens(const std::string& args) {
    return RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") + " " + ShellQuote(PerflensBinary()) +
                        " " + args + " -i " + ShellQuote(data_) + " --symfs " + ShellQuote(dir_ + "/symfs"),
                    dir_);
  }
  // perflens `args` on the recording, its first `lines` lines against perf's.
  void Compare(const std::string& args, const std::string& suffix, size_t lines) {
    const std::string expected_file = ScenarioSourceDir() + "/corpus_branch/" + GetParam().name + suffix;
    const std::string expected = ReadFileOrEmpty(expected_file);
    ASSERT_FALSE(expected.empty()) << expected_file;
    const CommandResult r = RunPerflens(args);
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    const std::string out = FirstLines(r.out, lines);
    if (out != expected) {
      WriteFile(expected_file + ".actual.txt", out);
      std::printf("[ corpus ] diff -u %s %s.actual.txt\n", expected_file.c_str(), expected_file.c_str());
    }
    EXPECT_EQ(out, expected);
  }
  // perflens `args` on the recording, the whole output against perf's as a list of rows
  // (a row line and the call graph below it) in any order.
  void CompareRows(const std::string& args, const std::string& suffix) {
    const std::string expected_file = ScenarioSourceDir() + "/corpus_branch/" + GetParam().name + suffix;
    const std::string expected = ReadFileOrEmpty(expected_file);
    ASSERT_FALSE(expected.empty()) << expected_file;
    const CommandResult r = RunPerflens(args);
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    const std::vector<std::string> want = Blocks(expected), got = Blocks(r.out);
    EXPECT_GT(want.size(), 10u);
    if (got != want) {
      WriteFile(expected_file + ".actual.txt", r.out);
      std::printf("[ corpus ] diff -u %s %s.actual.txt\n", expected_file.c_str(), expected_file.c_str());
    }
    EXPECT_EQ(got, want);
  }
  // The rows of a report (each with the lines below it up to the next row), sorted;
  // "#" lines and empty lines left out.
  static std::vector<std::string> Blocks(const std::string& text) {
    std::vector<std::string> blocks;
    for (const std::string& line : SplitLines(text)) {
      if (line.empty() || line[0] == '#') continue;
      const size_t first = line.find_first_not_of(' ');
      const bool row = first != std::string::npos && first > 0 && std::isdigit(static_cast<unsigned char>(line[first])) &&
                       line.find('%', first) != std::string::npos && line.find('%', first) < line.find(' ', first);
      if (row || blocks.empty()) blocks.emplace_back();
      blocks.back() += line + "\n";
    }
    std::sort(blocks.begin(), blocks.end());
    return blocks;
  }
  std::string data_, dir_;
};

TEST_P(CorpusBranch, ReportBranchModeIsPerfs) {
  if (!GetParam().report) GTEST_SKIP() << "differs outside branch stacks (see CorpusCase::report)";
  Compare("report --stdio", ".report.txt", 200);
}
// --branch-history: the branch stacks in front of the callchains (perf's branch
// counts), Children on for the files with callchains.
TEST_P(CorpusBranch, BranchHistoryIsPerfs) {
  const int mode = GetParam().branch_history;
  if (mode == 0) GTEST_SKIP() << "no --branch-history output stored";
  if (mode == 1) {
    Compare("report --stdio --branch-history", ".branch-history.txt", SIZE_MAX);
    return;
  }
  CompareRows("report --stdio --branch-history --percent-limit 1", ".branch-history.txt");
  Compare("report --stdio --branch-history --no-children -g caller --percent-limit 0.5", ".branch-history-self.txt",
          SIZE_MAX);
}
TEST_P(CorpusBranch, ScriptBrstackIsPerfs) { Compare("script -F ip,sym,brstack", ".brstack.txt", 30); }
TEST_P(CorpusBranch, ScriptBrstacksymIsPerfs) { Compare("script -F brstacksym,dso", ".brstacksym.txt", 10); }

INSTANTIATE_TEST_SUITE_P(
    Files, CorpusBranch,
    testing::Values(CorpusCase{"perf_data_converter/perf.data.branch-4.14", "perf.data.branch-4.14", true, 1},
                    CorpusCase{"perf_data_converter/perf.data.branch_stack_spec", "perf.data.branch_stack_spec", false},
                    CorpusCase{"perf_data_converter/perf.data.callgraph_and_branch-3.4",
                               "perf.data.callgraph_and_branch-3.4", true, 2},
                    CorpusCase{"perf_data_converter/perf.data.callgraph_and_branch-3.8",
                               "perf.data.callgraph_and_branch-3.8", true, 2},
                    CorpusCase{"autofdo/propeller_sample_1.perfdata1", "propeller_sample_1.perfdata1"},
                    CorpusCase{"autofdo/test.lbr", "test.lbr", false}),
    [](const auto& info) {
      std::string n = info.param.name;
      for (char& c : n)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return n;
    });

}  // namespace
}  // namespace perflens::scenario
