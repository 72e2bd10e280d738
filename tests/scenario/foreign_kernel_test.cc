// Issue #14: a public recording of an old kernel reported with --symfs gets perf 6.1's
// kernel rows — raw addresses — and never names from this machine's /proc/kallsyms,
// which describes another kernel. perf's rows were captured by
// corpus_kernel/capture.sh; the recordings are in the shared corpus (skipped when it
// is absent).
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

class ForeignKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(ForeignKernel, KernelRowsEqualPerfsUnderSymfs) {
  const std::string data = std::string(PERFLENS_CORPUS_DIR) + "/perf_data_converter/" + GetParam();
  struct stat st;
  if (stat(data.c_str(), &st) != 0) GTEST_SKIP() << data << " is absent (the shared corpus)";
  const std::string expected_file = ScenarioSourceDir() + "/corpus_kernel/" + GetParam() + ".perf-kernel-rows.txt";
  const std::string expected = ReadFileOrEmpty(expected_file);
  ASSERT_FALSE(expected.empty()) << expected_file;

  char tmpl[] = "/tmp/perflens-foreign-kernel-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  ASSERT_EQ(mkdir((dir + "/home").c_str(), 0700), 0);
  ASSERT_EQ(mkdir((dir + "/symfs").c_str(), 0700), 0);
  CommandResult r = RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir + "/home") + " " +
                                 ShellQuote(PerflensBinary()) + " report -i " + ShellQuote(data) + " --symfs " +
                                 ShellQuote(dir + "/symfs") +
                                 " --stdio --no-children --sort sym -F overhead,sample,sym -t '|'",
                             dir);
  RunShell("rm -rf " + ShellQuote(dir), "/tmp");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> rows;
  for (const std::string& line : SplitLines(r.out))
    if (line.find("[k]") != std::string::npos) rows.push_back(line);
  std::sort(rows.begin(), rows.end());
  std::string actual;
  for (const std::string& row : rows) actual += row + "\n";
  if (actual != expected) {
    WriteFile(expected_file.substr(0, expected_file.size() - 4) + ".actual.txt", actual);
    std::printf("[ corpus ] diff -u %s %s.actual.txt\n", expected_file.c_str(),
                expected_file.substr(0, expected_file.size() - 4).c_str());
  }
  EXPECT_EQ(actual, expected);
  // And the summary says why the kernel has no names.
  EXPECT_NE(r.err.find("/proc/kallsyms: not used: --symfs"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Corpus, ForeignKernel,
                         ::testing::Values("perf.data.callgraph-3.4", "perf.data.busy.1-3.8"),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = i.param.substr(std::string("perf.data.").size());
                           std::replace_if(n.begin(), n.end(), [](char c) { return !isalnum(c); }, '_');
                           return n;
                         });

}  // namespace
}  // namespace perflens::scenario
